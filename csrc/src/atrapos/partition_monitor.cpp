#include "islands/atrapos/partition_monitor.hpp"

#include <stdexcept>
#include <string>

namespace islands::atrapos {

PartitionMonitor::PartitionMonitor(std::uint64_t lo, std::uint64_t hi, std::uint32_t n_partitions)
    : n_partitions_(n_partitions) {
  if (hi <= lo || hi - lo < kSubPartitions) {
    throw std::invalid_argument("partition [" + std::to_string(lo) + ", " + std::to_string(hi) + "): fewer keys than " +
                                std::to_string(kSubPartitions) + " sub-partitions");
  }
  if (n_partitions == 0) throw std::invalid_argument("n_partitions: must be at least 1");
  const unsigned __int128 width = hi - lo;
  for (std::size_t k = 0; k <= kSubPartitions; ++k) {
    bounds_[k] = lo + static_cast<std::uint64_t>((k * width + kSubPartitions - 1) / kSubPartitions);
  }
  const std::size_t n = kSubPartitions * n_partitions * kSubPartitions;
  sync_count_ = std::make_unique<OwnedCounter[]>(n);
  sync_bytes_ = std::make_unique<OwnedCounter[]>(n);
}

}  // namespace islands::atrapos
