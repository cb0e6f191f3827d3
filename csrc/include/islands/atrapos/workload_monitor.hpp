#pragma once
// ATraPos monitoring (paper 002 Sec V-D): the partitions' trace arrays together, as the
// monitor thread reads them.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "islands/atrapos/monitor_snapshot.hpp"
#include "islands/atrapos/partition_monitor.hpp"

namespace islands::atrapos {

//! One PartitionMonitor per partition of the current partitioning (all tables), numbered as
//! the engine numbers its partitions. Partition i's owner thread writes through
//! partition(i); the monitor thread calls snapshot() whenever it likes. After a
//! repartitioning the engine builds a new WorkloadMonitor for the new partitions (the paper
//! re-initializes the arrays "upon a new partition creation").
class WorkloadMonitor {
 public:
  //! Monitors for partitions with key ranges `ranges[i] = {lo, hi}`, allocated here. Throws
  //! std::invalid_argument naming the partition whose range is too small.
  explicit WorkloadMonitor(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges);
  //! Monitors built elsewhere (for example each on its owner thread, so its memory is on the
  //! owner's node); each must name as many partitions as there are monitors. Hand them over
  //! before any thread records or reads (thread start or a barrier orders that).
  explicit WorkloadMonitor(std::vector<std::unique_ptr<PartitionMonitor>> partitions);

  //! Number of partitions.
  std::size_t size() const noexcept { return partitions_.size(); }
  //! Partition i's monitor: record_*() only from its owner thread.
  PartitionMonitor& partition(std::size_t i) noexcept { return *partitions_[i]; }
  //! Partition i's monitor, read only.
  const PartitionMonitor& partition(std::size_t i) const noexcept { return *partitions_[i]; }
  //! Every counter now (relaxed loads; safe while owners record).
  MonitorSnapshot snapshot() const;

 private:
  std::vector<std::unique_ptr<PartitionMonitor>> partitions_;
};

}  // namespace islands::atrapos
