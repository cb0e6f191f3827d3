#pragma once
// A reading of every partition's trace arrays (ATraPos monitoring), taken by the monitor
// thread.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace islands::atrapos {

//! Every partition's counters at one moment, row-major: actions and cost are
//! [partition][sub]; sync_count and sync_bytes [partition][sub][remote partition][remote sub].
//! Counters are read one by one (relaxed), so a snapshot is not one instant, but every
//! counter is at least what any earlier snapshot of the same monitor read.
struct MonitorSnapshot {
  //! Number of partitions.
  std::size_t n_partitions = 0;
  //! Actions per [partition][sub].
  std::vector<std::uint64_t> actions;
  //! Summed action cost per [partition][sub].
  std::vector<std::uint64_t> cost;
  //! Synchronization points per [partition][sub][remote partition][remote sub].
  std::vector<std::uint64_t> sync_count;
  //! Bytes exchanged per [partition][sub][remote partition][remote sub].
  std::vector<std::uint64_t> sync_bytes;

  //! What was recorded between `earlier` and this snapshot (of the same monitor): the
  //! trace of one monitoring interval. Throws std::invalid_argument if the shapes differ or
  //! a counter went down (the snapshots are of different monitors or in the wrong order).
  MonitorSnapshot since(const MonitorSnapshot& earlier) const;
  //! Sum of all actions.
  std::uint64_t total_actions() const noexcept;
};

}  // namespace islands::atrapos
