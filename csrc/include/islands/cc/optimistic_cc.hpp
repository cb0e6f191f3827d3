#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "islands/settings/cc_kind.hpp"
#include "islands/txn/row_lock.hpp"
#include "islands/common/abort_reason.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/settings/engine_config.hpp"
#include "islands/txn/txn_context.hpp"

namespace islands {

//! Silo's optimistic concurrency control (Tu et al., SOSP 2013; paper 000 Sec 9). A row's lock
//! word holds [63] a lock bit and [62..0] its TID, the id of the commit that last wrote it.
//! - Reads take no lock: open() copies the row into a private image (seqlock style: word,
//!   data, word again; a locked row is waited for a moment, then the attempt aborts,
//!   occ_locked) and records the TID it saw.
//! - Writes are buffered: open() in exclusive mode hands out a private image too, which the
//!   workload changes; it is validated like a read (nothing may change the row meanwhile).
//! - Inserts (insert()) lock the new row in place (Silo's absent record, locked): readers that
//!   find it abort until commit publishes it; abort rolls it back (Row::kDeletedKey).
//! - Commit, in two steps: validate() locks the write set in address order (no-wait: a row
//!   locked by another aborts the attempt, occ_locked), then checks every read (its TID
//!   unchanged and not locked by another, else occ_validation) and picks the commit's TID:
//!   above every TID read or written and this context's last, in the current epoch. Then
//!   TxnContext::commit installs the images and publishes the TID (unlocking), or
//!   TxnContext::abort unlocks. Between the two a distributed part holds its locks: validate
//!   is a 2PC participant's vote (phase 1) and commit or abort its decision (phase 2).
//! - Epochs: the TID's bits above kEpochShift are the epoch, the cycle clock's ticks over
//!   2^kTickShift (about 25 ms at 2.6 GHz): a global clock every core reads without sharing a
//!   cache line, rather than a counter a thread advances.
//! - Distributed transactions (exec/two_phase_commit.hpp): the coordinator runs its own part
//!   and locks its write set (lock_writes) before any fragment goes out, and validates its
//!   reads after every vote is in; a participant locks and validates when it votes. Silo's
//!   serialization point is a moment when every write lock is held and every read still
//!   valid. With one participant that is its vote (the coordinator's locks are older, its
//!   reads are checked later). With several, one participant's vote may come before
//!   another's locks, so a participant with reads keeps them and validates them again on a
//!   validate request, sent once every vote is in (FaRM's lock, then validate).
//! No read locks, so isolation is serializable only (read committed is meaningless here).
struct OptimisticCc {
  static constexpr bool kLocks = true;        //!< takes (commit-time) locks: failures call ctx.abort()
  static constexpr bool kInPlace = false;     //!< writes go to private images, installed at commit
  static constexpr unsigned kEpochShift = 24;  //!< TID = epoch << kEpochShift | sequence
  static constexpr unsigned kTickShift = 26;   //!< an epoch lasts 2^kTickShift cycle-clock ticks
  static constexpr int kReadSpins = 64;        //!< tries to copy a locked row before aborting
  static constexpr std::uint64_t kLocked = OccSets::kLocked;  //!< the lock bit of a row's word

  bool skip_validation = false;  //!< engine.test_skip_validation: a broken mode for the checker's tests

  //! The scheme as an engine config sets it up.
  static OptimisticCc configured(const EngineConfig& engine) { return OptimisticCc{engine.test_skip_validation}; }
  //! Distributed parts run OCC too: validate() is the vote (it never waits).
  OptimisticCc distributed() const { return *this; }

  //! The image of `row` (a row of `columns` payload columns) the transaction reads (shared) or
  //! writes (exclusive): a private copy; nullptr with `reason` when the row stays locked.
  Row* open(Row* row, LockMode mode, TxnContext& ctx, AbortReason& reason, std::uint32_t, std::size_t columns) const {
    OccSets& occ = ctx.occ();
    if (mode == LockMode::exclusive) {
      if (Row* image = occ.written_image(row)) return image;
    }
    Row* image = occ.allocate(columns);
    std::uint64_t tid = 0;
    if (!OccSets::copy(row, image, columns, kReadSpins, tid)) {
      reason = AbortReason::occ_locked;
      return nullptr;
    }
    OccSets::set_origin(image, row);
    if (mode == LockMode::exclusive) {
      occ.write(row, image, columns, tid);
    } else {
      occ.read(row, tid);
    }
    ctx.accessed(row, mode, false);  // a write's version is installed at commit
    return image;
  }
  //! A row the transaction inserts (new, or one an aborted insert left): locked in place until
  //! commit; false with occ_locked when another transaction holds it.
  bool insert(Row* row, TxnContext& ctx, AbortReason& reason, std::uint32_t = 0) const {
    std::uint64_t word = row->lock.load(std::memory_order_relaxed);
    if ((word & kLocked) ||
        !row->lock.compare_exchange_strong(word, word | kLocked, std::memory_order_acquire, std::memory_order_relaxed)) {
      reason = AbortReason::occ_locked;
      return false;
    }
    ctx.occ().inserted(row, word);
    ctx.accessed(row, LockMode::exclusive, true);  // nobody reads it before commit or abort
    return true;
  }
  //! The row an image was copied from.
  static Row* origin(Row* image) { return OccSets::origin(image); }
  //! No table locks.
  bool lock_table(std::uint32_t, LockMode, TxnContext&, AbortReason&) const { return true; }
  //! No read locks to release.
  void end_statement(TxnContext&) const {}

  //! The first half of validate: locks the write set in address order, no-wait (a row
  //! another holds: occ_locked; one changed since its image was copied: occ_validation). False
  //! with `reason` (the locks it took released) when the attempt must abort; the caller then
  //! aborts the context. Does nothing once the write set is locked.
  bool lock_writes(TxnContext& ctx, AbortReason& reason) const {
    OccSets& occ = ctx.occ();
    if (!occ.active() || occ.writes_locked()) return true;
    auto& writes = occ.writes();
    std::sort(writes.begin(), writes.end(), [](const OccSets::Write& a, const OccSets::Write& b) { return a.row < b.row; });
    for (std::size_t i = 0; i < writes.size(); ++i) {
      std::uint64_t word = writes[i].row->lock.load(std::memory_order_relaxed);
      // Taken only as the TID the image was copied at, unlocked: a change means the image is
      // stale (validation), a lock means another commit holds it.
      const bool stale = (word & ~kLocked) != writes[i].tid && !skip_validation;
      if ((word & kLocked) || stale ||
          !writes[i].row->lock.compare_exchange_strong(word, word | kLocked, std::memory_order_acquire,
                                                       std::memory_order_relaxed)) {
        for (std::size_t j = 0; j < i; ++j) writes[j].row->lock.store(writes[j].tid, std::memory_order_release);
        reason = stale ? AbortReason::occ_validation : AbortReason::occ_locked;
        return false;
      }
      if (skip_validation) writes[i].tid = word;  // the broken mode installs over whatever is there
    }
    occ.writes_locked() = true;
    return true;
  }

  //! Commit's first step (a 2PC vote): locks the write set (unless lock_writes did),
  //! validates the read set, picks the commit TID. False with `reason` when the attempt must
  //! abort; the caller then aborts the context. Validating again (a validate request) checks
  //! the reads again and picks the TID anew.
  bool validate(TxnContext& ctx, AbortReason& reason) const {
    OccSets& occ = ctx.occ();
    if (!occ.active()) return true;
    if (!lock_writes(ctx, reason)) return false;
    const auto& writes = occ.writes();
    std::uint64_t tid = occ.last_tid();
    for (const OccSets::Write& w : writes) tid = std::max(tid, w.tid);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const std::uint64_t epoch = CycleClock::now() >> kTickShift;
    for (const OccSets::Read& r : occ.reads()) {
      const std::uint64_t word = r.row->lock.load(std::memory_order_acquire);
      tid = std::max(tid, r.tid);
      if (skip_validation) continue;
      if ((word & ~kLocked) != r.tid) {
        reason = AbortReason::occ_validation;
        return false;
      }
      if ((word & kLocked) && !written(writes, r.row)) {
        reason = AbortReason::occ_locked;
        return false;
      }
    }
    for (const OccSets::Read& i : occ.inserts()) tid = std::max(tid, i.tid);
    occ.commit_tid() = std::max(tid + 1, epoch << kEpochShift) & ~kLocked;
    return true;
  }
  //! Whether validate has reads to check (a read set).
  bool reads_to_validate(TxnContext& ctx) const { return !ctx.occ().reads().empty(); }

 private:
  // Whether `row` is in the sorted write set.
  static bool written(const PodVector<OccSets::Write>& writes, const Row* row) {
    const auto it = std::lower_bound(writes.begin(), writes.end(), row,
                                     [](const OccSets::Write& w, const Row* r) { return w.row < r; });
    return it != writes.end() && it->row == row;
  }
};

}  // namespace islands
