#pragma once
// ATraPos monitoring (paper 002 Sec V-D): one partition's trace arrays, written by the thread
// that owns the partition and read by the monitor thread.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "islands/atrapos/owned_counter.hpp"

namespace islands::atrapos {

//! Sub-partitions per partition (paper 002: "10 sub-partitions per partition ... a good
//! trade-off between the size of the arrays and the number of repartitioning operations").
inline constexpr std::size_t kSubPartitions = 10;

//! The trace of one partition of keys [lo, hi), cut into kSubPartitions equal sub-ranges:
//! per sub-partition, the number of actions and their summed cost (cycles, or any unit the
//! engine picks), and per (local sub-partition, remote partition, remote sub-partition) the
//! number of synchronization points and the bytes exchanged at them.
//!
//! Writers: only the partition's owner thread calls record_*() (no atomics with a lock
//! prefix, no fences: see OwnedCounter). Readers: any thread, at any time; each counter only
//! grows, so a reader takes differences of two readings to get an interval's trace (the
//! monitor thread never writes, which keeps "emptying the arrays" off the owner's path).
//! Size: 2 x 10 counters on their own cache lines, plus 2 x 100 x n_partitions counters for
//! synchronization, allocated by the constructor (build it on the owner thread to have its
//! memory on the owner's node).
class PartitionMonitor {
 public:
  //! A monitor for keys [lo, hi) of a table whose partitions (of all tables) number
  //! `n_partitions` (the remote partitions a sync can name). Throws std::invalid_argument if
  //! the range holds fewer keys than sub-partitions or n_partitions is 0.
  PartitionMonitor(std::uint64_t lo, std::uint64_t hi, std::uint32_t n_partitions);

  //! First key of the partition.
  std::uint64_t lo() const noexcept { return bounds_[0]; }
  //! One past the last key of the partition.
  std::uint64_t hi() const noexcept { return bounds_[kSubPartitions]; }
  //! Number of partitions a synchronization may name.
  std::uint32_t n_partitions() const noexcept { return n_partitions_; }
  //! First key of sub-partition `sub` (sub == kSubPartitions gives hi()): lo + ceil(sub *
  //! (hi - lo) / kSubPartitions), the cut islands.atrapos.split_range makes too.
  std::uint64_t bound(std::size_t sub) const noexcept { return bounds_[sub]; }

  //! The sub-partition holding `key` (keys below lo() map to 0, from hi() on to the last),
  //! by branch-free comparisons with the bounds.
  unsigned sub_of(std::uint64_t key) const noexcept {
    unsigned sub = 0;
    for (std::size_t k = 1; k < kSubPartitions; ++k) sub += key >= bounds_[k] ? 1u : 0u;
    return sub;
  }

  //! Records one action on sub-partition `sub` (< kSubPartitions) that cost `cost`. Owner
  //! thread only.
  void record_action(unsigned sub, std::uint64_t cost) noexcept {
    hot_.actions[sub].add(1);
    hot_.cost[sub].add(cost);
  }
  //! Adds `cost` to sub-partition `sub` without counting an action (an engine that counts its
  //! actions in one place and costs them in another, as exec/plp/plp_monitor.hpp). Owner thread only.
  void record_cost(unsigned sub, std::uint64_t cost) noexcept { hot_.cost[sub].add(cost); }
  //! Counts `n` actions on sub-partition `sub` without a cost. Owner thread only.
  void record_count(unsigned sub, std::uint64_t n = 1) noexcept { hot_.actions[sub].add(n); }
  //! Records one synchronization point between an action on local sub-partition `sub` and
  //! one on sub-partition `remote_sub` of partition `remote_partition` (< n_partitions()),
  //! exchanging `bytes`. Owner thread only.
  void record_sync(unsigned sub, std::uint32_t remote_partition, unsigned remote_sub, std::uint64_t bytes) noexcept {
    const std::size_t at = sync_index(sub, remote_partition, remote_sub);
    sync_count_[at].add(1);
    sync_bytes_[at].add(bytes);
  }

  //! Actions recorded on sub-partition `sub` so far (any thread).
  std::uint64_t actions(unsigned sub) const noexcept { return hot_.actions[sub].read(); }
  //! Summed cost recorded on sub-partition `sub` so far (any thread).
  std::uint64_t cost(unsigned sub) const noexcept { return hot_.cost[sub].read(); }
  //! Synchronization points recorded so far for the (sub, remote partition, remote sub)
  //! triple (any thread).
  std::uint64_t sync_count(unsigned sub, std::uint32_t remote_partition, unsigned remote_sub) const noexcept {
    return sync_count_[sync_index(sub, remote_partition, remote_sub)].read();
  }
  //! Bytes recorded so far for the triple (any thread).
  std::uint64_t sync_bytes(unsigned sub, std::uint32_t remote_partition, unsigned remote_sub) const noexcept {
    return sync_bytes_[sync_index(sub, remote_partition, remote_sub)].read();
  }

 private:
  std::size_t sync_index(unsigned sub, std::uint32_t remote_partition, unsigned remote_sub) const noexcept {
    return (static_cast<std::size_t>(sub) * n_partitions_ + remote_partition) * kSubPartitions + remote_sub;
  }

  // The counters every action touches, on cache lines of their own.
  struct alignas(64) Hot {
    std::array<OwnedCounter, kSubPartitions> actions;
    std::array<OwnedCounter, kSubPartitions> cost;
  };
  Hot hot_;
  std::array<std::uint64_t, kSubPartitions + 1> bounds_{};
  std::uint32_t n_partitions_;
  std::unique_ptr<OwnedCounter[]> sync_count_;
  std::unique_ptr<OwnedCounter[]> sync_bytes_;
};

}  // namespace islands::atrapos
