#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace islands {

//! The timestamps of snapshot isolation in one instance (cc/multi_version_cc.hpp): one
//! instance-wide counter of commit timestamps, and one slot per transaction context holding
//! the read timestamp of the snapshot it has open (idle otherwise). The oldest open read
//! timestamp is the garbage collector's watermark: no snapshot open now or later reads below it;
//! horizon() gives the collector every open read timestamp, so that it keeps only the versions
//! those read.
//! - A commit takes its timestamp with one fetch_add (commit_ts); a snapshot reads the counter
//!   (begin). Each slot is its own cache line, written only by its context's worker, so opening
//!   and closing a snapshot shares no line; the watermark scans the claimed slots (a collector,
//!   now and then, rather than every transaction on one shared word).
//! - Ordering (all seq_cst): begin publishes exactly the timestamp it reads at (it re-reads the
//!   counter after publishing and starts over if it moved); watermark() and horizon() read the
//!   counter before they scan the slots, so a scan that misses a slot being opened read a
//!   counter no newer than that snapshot's timestamp.
class SnapshotClock {
 public:
  static constexpr std::uint64_t kIdle = std::numeric_limits<std::uint64_t>::max();  //!< a slot with no snapshot

  //! One context's read timestamp (kIdle when it has no snapshot open), its own cache line.
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> rts{kIdle};  //!< the open snapshot's timestamp, or kIdle
    std::atomic<bool> claimed{false};       //!< owned by a context
  };

  //! capacity: the most contexts that may hold a slot at once.
  explicit SnapshotClock(std::size_t capacity = 4096) : slots_(std::make_unique<Slot[]>(capacity)), capacity_(capacity) {}

  //! A free slot for a context (released with release()); throws std::length_error when every
  //! slot is taken.
  Slot* claim() {
    for (std::size_t i = 0; i < capacity_; ++i) {
      bool expected = false;
      if (!slots_[i].claimed.load(std::memory_order_relaxed) &&
          slots_[i].claimed.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
        std::size_t used = used_.load(std::memory_order_relaxed);
        while (used < i + 1 && !used_.compare_exchange_weak(used, i + 1, std::memory_order_acq_rel)) {
        }
        return &slots_[i];
      }
    }
    throw std::length_error("mvcc: more than " + std::to_string(capacity_) + " transaction contexts in one instance");
  }
  //! Gives a slot back (its snapshot closed).
  void release(Slot* slot) {
    slot->rts.store(kIdle, std::memory_order_seq_cst);
    slot->claimed.store(false, std::memory_order_release);
  }

  //! Opens a snapshot in `slot`: returns its read timestamp, the newest commit timestamp taken
  //! so far (a commit whose timestamp is at or below it is visible; one installing then is
  //! waited for by the readers that meet its rows).
  std::uint64_t begin(Slot& slot) {
    std::uint64_t published = clock_.load(std::memory_order_seq_cst);
    for (;;) {
      slot.rts.store(published, std::memory_order_seq_cst);
      // Unchanged after publishing: a scan that missed the store read the counter before it,
      // so at or below the timestamp published.
      const std::uint64_t now = clock_.load(std::memory_order_seq_cst);
      if (now == published) return published;
      published = now;
    }
  }
  //! Closes the snapshot of `slot`.
  static void end(Slot& slot) { slot.rts.store(kIdle, std::memory_order_release); }
  //! A new commit timestamp, above every one taken before.
  std::uint64_t commit_ts() { return clock_.fetch_add(1, std::memory_order_seq_cst) + 1; }
  //! The newest commit timestamp taken.
  std::uint64_t now() const { return clock_.load(std::memory_order_seq_cst); }
  //! The oldest read timestamp any snapshot open now or later can have: versions superseded at
  //! or below it by a newer version are invisible to all (the garbage collector's bound).
  std::uint64_t watermark() const {
    std::uint64_t low = clock_.load(std::memory_order_seq_cst);
    const std::size_t used = used_.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < used; ++i) low = std::min(low, slots_[i].rts.load(std::memory_order_seq_cst));
    return low;
  }
  //! Into `reads`, ascending and distinct: every open snapshot's read timestamp and the
  //! counter read before the scan (each snapshot opened since reads at or above it). A version
  //! is needed only while one of these falls in the span it was current over (VersionStore).
  void horizon(std::vector<std::uint64_t>& reads) const {
    reads.clear();
    reads.push_back(clock_.load(std::memory_order_seq_cst));
    const std::size_t used = used_.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < used; ++i) {
      const std::uint64_t rts = slots_[i].rts.load(std::memory_order_seq_cst);
      if (rts != kIdle) reads.push_back(rts);
    }
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  }

 private:
  alignas(64) std::atomic<std::uint64_t> clock_{0};
  std::unique_ptr<Slot[]> slots_;
  std::size_t capacity_;
  alignas(64) std::atomic<std::size_t> used_{0};  // slots [0, used) were ever claimed
};

}  // namespace islands
