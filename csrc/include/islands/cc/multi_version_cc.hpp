#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

#include "islands/settings/cc_kind.hpp"
#include "islands/txn/row_lock.hpp"
#include "islands/common/abort_reason.hpp"
#include "islands/settings/engine_config.hpp"
#include "islands/txn/snapshot_txn.hpp"
#include "islands/txn/txn_context.hpp"

namespace islands {

//! Snapshot isolation by multi-version concurrency control (engine.cc = mvcc, which runs at
//! engine.isolation = snapshot only).
//! - Each transaction attempt reads one snapshot: at its first access it takes a read
//!   timestamp (the instance's newest commit timestamp, SnapshotClock), and every read sees,
//!   per row, the newest version committed at or before it: the row itself when its commit
//!   timestamp is at or below the read timestamp, else an older version from the row's chain
//!   (VersionStore). A row created after the snapshot is absent from it: the attempt aborts
//!   (si_not_visible), since the workloads find rows through indexes that have no versions.
//! - Writes are buffered in private images (OccSets, as under occ) and installed at commit.
//!   First committer wins: writing a row whose newest version is newer than the snapshot
//!   aborts (si_write_conflict), at open and again at commit, where validate() locks the write
//!   set in address order without waiting (a row another commit holds: si_locked) and checks
//!   each row still holds the version the image came from. Reads are not validated: that is
//!   what makes it snapshot isolation and not serializable (write skew is allowed).
//! - Commit timestamps come from one instance-wide counter, taken once the write set is
//!   installing (SnapshotTxn::install); the old versions go to the chains; garbage collection
//!   keeps only versions some open snapshot may read (read timestamps in per-context slots,
//!   SnapshotClock: nothing below the oldest, the watermark, and above it one version per
//!   open snapshot).
//! - Inserts lock the new row in place as occ does (readers find it absent until commit);
//!   deletes (TPC-C's delivery) take the row's key away at commit while it is installing, so
//!   older snapshots still read its old version from the chain.
//! - Distributed transactions (2PC): each participant runs its part at its own instance's
//!   snapshot and validates (first committer wins, write set locked) when it votes; the
//!   commit timestamp is taken at phase 2. So every part reads one snapshot of its instance,
//!   no update is lost and nothing uncommitted is read, but the parts' snapshots are not one
//!   global snapshot: a transaction may see another distributed transaction's effects at one
//!   instance and not yet at another (the checker checks the per-instance guarantees).
struct MultiVersionCc {
  static constexpr bool kLocks = true;     //!< takes (commit-time) locks: failures call ctx.abort()
  static constexpr bool kInPlace = false;  //!< writes go to private images, installed at commit
  static constexpr std::uint64_t kFlags = SnapshotTxn::kFlags;  //!< the lock word's state bits
  static constexpr std::uint64_t kTsMask = SnapshotTxn::kTsMask;  //!< its commit timestamp bits

  std::shared_ptr<MultiVersionState> state = std::make_shared<MultiVersionState>();  //!< the instance's, shared by copies

  //! What the version store holds at the end of a run and did during it, as consistency
  //! figures (RunResult.checks): mvcc_versions_live, _bytes, _created, _reclaimed, _peak.
  template <class Figures>
  void report(Figures& figures) const {
    const VersionStore::Stats s = state->versions.stats();
    figures.emplace_back("mvcc_versions_live", static_cast<std::int64_t>(s.live));
    figures.emplace_back("mvcc_versions_bytes", static_cast<std::int64_t>(s.bytes));
    figures.emplace_back("mvcc_versions_created", static_cast<std::int64_t>(s.created));
    figures.emplace_back("mvcc_versions_reclaimed", static_cast<std::int64_t>(s.reclaimed));
    figures.emplace_back("mvcc_versions_peak", static_cast<std::int64_t>(s.peak));
  }
  //! The scheme as an engine config sets it up: a fresh clock and version store.
  static MultiVersionCc configured(const EngineConfig& engine) {
    MultiVersionCc scheme;
    scheme.state->skip_write_conflict = engine.test_skip_write_conflict;
    return scheme;
  }
  //! Distributed parts run the same scheme (validate() is the vote; it never waits).
  MultiVersionCc distributed() const { return *this; }

  //! The image of `row` (`columns` payload columns) in the attempt's snapshot, to read (shared)
  //! or write (exclusive): a private copy; nullptr with `reason` when the row is absent from the
  //! snapshot (si_not_visible), stays installing (si_locked) or, to write, has a newer version
  //! than the snapshot (si_write_conflict) or is held by another commit (si_locked).
  Row* open(Row* row, LockMode mode, TxnContext& ctx, AbortReason& reason, std::uint32_t, std::size_t columns) const {
    SnapshotTxn& snap = ctx.snapshot(state);
    OccSets& sets = ctx.occ();
    if (Row* image = sets.written_image(row)) return image;  // its own write, in either mode
    Row* image = sets.allocate(columns);
    std::uint64_t word = 0, version = 0;
    const SnapshotTxn::Read found = snap.read(row, image, columns, word, version, ctx.history());
    if (found == SnapshotTxn::Read::absent || found == SnapshotTxn::Read::busy) {
      reason = found == SnapshotTxn::Read::absent ? AbortReason::si_not_visible : AbortReason::si_locked;
      return nullptr;
    }
    OccSets::set_origin(image, row);
    if (mode == LockMode::exclusive) {
      const bool skip = state->skip_write_conflict;
      if (found == SnapshotTxn::Read::older && !skip) {
        reason = AbortReason::si_write_conflict;  // a newer version exists: first committer won
        return nullptr;
      }
      if (found == SnapshotTxn::Read::newest && (word & SnapshotTxn::kLocked)) {
        reason = AbortReason::si_locked;  // another commit holds it
        return nullptr;
      }
      sets.write(row, image, columns, word & kTsMask);
      ctx.accessed_version(row, mode, version, snap.rts());
    } else {
      ctx.accessed_version(row, mode, version, snap.rts());
    }
    return image;
  }
  //! A row the transaction inserts (new, or one an aborted insert or a delete left): locked in
  //! place and marked inserting until commit, its old versions dropped; false with si_locked
  //! when another transaction holds it.
  bool insert(Row* row, TxnContext& ctx, AbortReason& reason, std::uint32_t = 0) const {
    ctx.snapshot(state);
    std::uint64_t word = row->lock.load(std::memory_order_seq_cst);
    if ((word & kFlags) || !row->lock.compare_exchange_strong(word, word | SnapshotTxn::kLocked | SnapshotTxn::kInserting,
                                                              std::memory_order_seq_cst, std::memory_order_relaxed)) {
      reason = AbortReason::si_locked;
      return false;
    }
    state->versions.forget(row);
    ctx.occ().inserted(row, word);
    ctx.accessed(row, LockMode::exclusive, true);  // no snapshot reads it before commit
    return true;
  }
  //! The row an image was copied from.
  static Row* origin(Row* image) { return OccSets::origin(image); }
  //! No table locks.
  bool lock_table(std::uint32_t, LockMode, TxnContext&, AbortReason&) const { return true; }
  //! Nothing to release: reads take no locks.
  void end_statement(TxnContext&) const {}

  //! Commit's first step (a 2PC vote; a coordinator's before its fragments go out): locks the
  //! write set in address order, each row only while it still holds the version its image
  //! came from (first committer wins: si_write_conflict; held by another: si_locked). False
  //! with `reason`, the locks it took released; the caller then aborts the context. Does
  //! nothing once the write set is locked.
  bool lock_writes(TxnContext& ctx, AbortReason& reason) const {
    OccSets& sets = ctx.occ();
    if (!sets.active() || sets.writes_locked()) return true;
    auto& writes = sets.writes();
    std::sort(writes.begin(), writes.end(), [](const OccSets::Write& a, const OccSets::Write& b) { return a.row < b.row; });
    const bool skip = state->skip_write_conflict;
    for (std::size_t i = 0; i < writes.size(); ++i) {
      std::uint64_t word = writes[i].row->lock.load(std::memory_order_seq_cst);
      const bool conflict = !skip && (word & kTsMask) != writes[i].tid;
      if ((word & kFlags) || conflict ||
          !writes[i].row->lock.compare_exchange_strong(word, word | SnapshotTxn::kLocked, std::memory_order_seq_cst,
                                                       std::memory_order_relaxed)) {
        for (std::size_t j = 0; j < i; ++j) writes[j].row->lock.store(writes[j].tid, std::memory_order_release);
        reason = conflict ? AbortReason::si_write_conflict : AbortReason::si_locked;
        return false;
      }
      writes[i].tid = word;  // the word to put back on abort (and the old version's timestamp)
    }
    sets.writes_locked() = true;
    return true;
  }
  //! Commit's validation: the write set locked (lock_writes); reads are not checked, which is
  //! what makes it snapshot isolation and not serializable.
  bool validate(TxnContext& ctx, AbortReason& reason) const { return lock_writes(ctx, reason); }
  //! No reads to validate (a snapshot's reads stay valid for it).
  bool reads_to_validate(TxnContext&) const { return false; }
};

}  // namespace islands
