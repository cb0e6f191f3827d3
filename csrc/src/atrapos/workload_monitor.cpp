#include "islands/atrapos/workload_monitor.hpp"

#include <stdexcept>
#include <string>

namespace islands::atrapos {

WorkloadMonitor::WorkloadMonitor(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges) {
  if (ranges.empty()) throw std::invalid_argument("ranges: a monitor needs at least one partition");
  partitions_.reserve(ranges.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    try {
      partitions_.push_back(
          std::make_unique<PartitionMonitor>(ranges[i].first, ranges[i].second, static_cast<std::uint32_t>(ranges.size())));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("ranges[" + std::to_string(i) + "]: " + e.what());
    }
  }
}

WorkloadMonitor::WorkloadMonitor(std::vector<std::unique_ptr<PartitionMonitor>> partitions)
    : partitions_(std::move(partitions)) {
  if (partitions_.empty()) throw std::invalid_argument("partitions: a monitor needs at least one partition");
  for (std::size_t i = 0; i < partitions_.size(); ++i) {
    if (!partitions_[i] || partitions_[i]->n_partitions() != partitions_.size()) {
      throw std::invalid_argument("partitions[" + std::to_string(i) + "]: missing or sized for another partition count");
    }
  }
}

MonitorSnapshot WorkloadMonitor::snapshot() const {
  const std::size_t n = partitions_.size();
  const std::size_t k = kSubPartitions;
  MonitorSnapshot s;
  s.n_partitions = n;
  s.actions.resize(n * k);
  s.cost.resize(n * k);
  s.sync_count.resize(n * k * n * k);
  s.sync_bytes.resize(n * k * n * k);
  for (std::size_t p = 0; p < n; ++p) {
    const PartitionMonitor& m = *partitions_[p];
    for (unsigned sub = 0; sub < k; ++sub) {
      s.actions[p * k + sub] = m.actions(sub);
      s.cost[p * k + sub] = m.cost(sub);
      for (std::uint32_t q = 0; q < n; ++q) {
        for (unsigned rs = 0; rs < k; ++rs) {
          const std::size_t at = ((p * k + sub) * n + q) * k + rs;
          s.sync_count[at] = m.sync_count(sub, q, rs);
          s.sync_bytes[at] = m.sync_bytes(sub, q, rs);
        }
      }
    }
  }
  return s;
}

}  // namespace islands::atrapos
