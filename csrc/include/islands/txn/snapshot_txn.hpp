#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "islands/txn/snapshot_clock.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/storage/row.hpp"
#include "islands/storage/version_store.hpp"
#include "islands/txn/occ_sets.hpp"
#include "islands/txn/txn_history.hpp"

namespace islands {

//! What an instance's snapshot-isolation transactions share (cc/multi_version_cc.hpp): the
//! timestamps and the old versions.
struct MultiVersionState {
  SnapshotClock clock;    //!< commit timestamps and the open snapshots' read timestamps
  VersionStore versions;  //!< the rows' older versions
  bool skip_write_conflict = false;  //!< engine.test_skip_write_conflict (a broken mode)
};

//! One transaction context's snapshot-isolation state, reused across its transactions, beside
//! its OccSets (which hold the write set with its private images and the rows inserted in
//! place, as under OCC). Under snapshot isolation a row's lock word is
//!   [63] locked (validated: a commit in progress holds it; the row still holds its newest
//!        committed version), [62] installing (the holder has its commit timestamp and is
//!        writing; readers wait), [61] inserting (the row is new and uncommitted: no snapshot
//!        holds it), [60..0] the commit timestamp of the row's current version (0: as loaded).
//! Commit (install, then the context's deletes, then unlock_committed): every held row is
//! marked installing before the commit timestamp is taken, so a snapshot taken at or after that
//! timestamp that meets one of them waits for it; the row's old version goes to the version
//! store, the image is copied in, and the word gets the timestamp (unlocked).
class SnapshotTxn {
 public:
  static constexpr std::uint64_t kLocked = OccSets::kLocked;  //!< held by a validated commit
  static constexpr std::uint64_t kInstalling = 1ULL << 62;     //!< its holder is installing
  static constexpr std::uint64_t kInserting = 1ULL << 61;      //!< new, not committed
  static constexpr std::uint64_t kFlags = kLocked | kInstalling | kInserting;  //!< the three bits
  static constexpr std::uint64_t kTsMask = kInserting - 1;     //!< the commit timestamp bits
  static constexpr unsigned kGcPeriod = 8;  //!< commits between a horizon refresh and a stripe sweep

  //! What a read of a row found.
  enum class Read { newest, older, absent, busy };

  //! A context's state over the instance's `state`: claims the context's read-timestamp slot.
  explicit SnapshotTxn(std::shared_ptr<MultiVersionState> state)
      : state_(std::move(state)), slot_(state_->clock.claim()) {}
  ~SnapshotTxn() { state_->clock.release(slot_); }  //!< gives the slot back
  SnapshotTxn(const SnapshotTxn&) = delete;
  SnapshotTxn& operator=(const SnapshotTxn&) = delete;

  //! Opens the attempt's snapshot unless it has one (at its first access).
  void begin() {
    if (!open_) {
      rts_ = state_->clock.begin(*slot_);
      open_ = true;
    }
  }
  bool open() const { return open_; }          //!< whether a snapshot is open
  std::uint64_t rts() const { return rts_; }   //!< the open snapshot's read timestamp
  MultiVersionState& state() { return *state_; }  //!< the instance's shared state

  //! Copies into `image` the version of `row` (`columns` payload columns) the snapshot sees:
  //! newest (the row's own, `word` the lock word it was copied under), older (from the version
  //! store), absent (the row did not exist then: inserted since, or being inserted) or busy (a
  //! commit kept installing it). `version` gets the history id of the version (when `history`).
  Read read(const Row* row, Row* image, std::size_t columns, std::uint64_t& word, std::uint64_t& version,
            TxnHistory* history) {
    const std::size_t n = (Row::stride(columns) - sizeof(Row)) / 8;
    const auto* from = reinterpret_cast<const std::uint64_t*>(row->columns());
    auto* to = reinterpret_cast<std::uint64_t*>(image->columns());
    for (int attempt = 0; attempt < kReadTries; ++attempt) {
      const std::uint64_t before = row->lock.load(std::memory_order_seq_cst);
      if (before & kInstalling) {
        for (int i = 0; i < 16; ++i) cpu_relax();
        continue;
      }
      if (before & kInserting) return Read::absent;
      if ((before & kTsMask) > rts_) {
        std::uint64_t ts = 0;
        return state_->versions.find(row, rts_, image, n * 8, ts, version) ? Read::older : Read::absent;
      }
      image->key = __atomic_load_n(&row->key, __ATOMIC_RELAXED);
      for (std::size_t i = 0; i < n; ++i) to[i] = __atomic_load_n(from + i, __ATOMIC_RELAXED);
      if (history) version = history->current(row);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (row->lock.load(std::memory_order_relaxed) == before) {
        word = before;
        return Read::newest;
      }
    }
    return Read::busy;
  }

  //! Commit's install step (TxnContext::commit), the write set validated (locked): marks the
  //! held rows installing, takes the commit timestamp, keeps the old versions, records the
  //! history at that timestamp and copies the images in. A transaction that wrote nothing
  //! takes no timestamp (its history number is its read timestamp). Throws std::logic_error
  //! for a write set nothing validated.
  [[gnu::noinline]] void install(OccSets& sets, TxnHistory* history) {
    auto& writes = sets.writes();
    auto& inserts = sets.inserts();
    if (writes.empty() && inserts.empty()) {
      if (history) history->install(rts_);
      return;
    }
    if (!writes.empty() && !sets.writes_locked()) {
      throw std::logic_error("mvcc: a transaction committed without validation");
    }
    for (const OccSets::Write& w : writes) w.row->lock.store(w.tid | kLocked | kInstalling, std::memory_order_seq_cst);
    for (const OccSets::Read& i : inserts) {
      i.row->lock.store(i.tid | kLocked | kInserting | kInstalling, std::memory_order_seq_cst);
    }
    cts_ = state_->clock.commit_ts();
    if (++commits_ % kGcPeriod == 0 || horizon_.empty()) state_->clock.horizon(horizon_);
    for (const OccSets::Write& w : writes) {
      const std::uint64_t writer = history ? history->current(w.row) : 0;
      state_->versions.push(w.row, w.tid & kTsMask, writer, w.payload_bytes, cts_, horizon_);
    }
    if (history) history->install(cts_);
    for (const OccSets::Write& w : writes) {
      const auto* from = reinterpret_cast<const std::uint64_t*>(w.image->columns());
      auto* to = reinterpret_cast<std::uint64_t*>(w.row->columns());
      for (std::size_t i = 0; i < w.payload_bytes / 8; ++i) __atomic_store_n(to + i, from[i], __ATOMIC_RELAXED);
    }
  }
  //! Commit's last step, after the context's deletes: the held rows get the commit timestamp
  //! (unlocked), the history appends the attempt, the snapshot closes, and now and then a
  //! stripe of old versions is swept.
  [[gnu::noinline]] void unlock_committed(OccSets& sets, TxnHistory* history) {
    if (cts_ != 0) {
      for (const OccSets::Write& w : sets.writes()) w.row->lock.store(cts_, std::memory_order_release);
      for (const OccSets::Read& i : sets.inserts()) i.row->lock.store(cts_, std::memory_order_release);
      cts_ = 0;
      if (commits_ % kGcPeriod == 0) sweep_next();
    }
    if (history) history->publish();  // after the rows are released: it may grow the sink
    end();
  }
  //! Abort: the rows this attempt held get their words back, and the snapshot closes.
  [[gnu::noinline]] void unlock_aborted(OccSets& sets) {
    if (sets.writes_locked()) {
      for (const OccSets::Write& w : sets.writes()) w.row->lock.store(w.tid, std::memory_order_release);
    }
    for (const OccSets::Read& i : sets.inserts()) i.row->lock.store(i.tid, std::memory_order_release);
    end();
  }
  //! Closes the snapshot (nothing held).
  void end() {
    if (open_) {
      SnapshotClock::end(*slot_);
      open_ = false;
    }
  }

 private:
  // Copies tried while a commit installs the row, then the attempt aborts (si_locked) and the
  // worker retries it, as occ does: a reader never waits long for a preempted installer.
  static constexpr int kReadTries = 256;

  // Prunes the next stripe of the version store to the cached horizon (the store's other
  // chains shrink when their rows are written again).
  void sweep_next() {
    state_->versions.sweep(next_stripe_++, horizon_, [](const Row* row) {
      const std::uint64_t word = row->lock.load(std::memory_order_acquire);
      return (word & kInstalling) ? ~std::uint64_t{0} : word & kTsMask;
    });
  }

  std::shared_ptr<MultiVersionState> state_;
  SnapshotClock::Slot* slot_;
  std::uint64_t rts_ = 0, cts_ = 0;
  std::vector<std::uint64_t> horizon_;  // read timestamps old versions may serve (SnapshotClock::horizon), cached
  std::uint64_t commits_ = 0;
  std::size_t next_stripe_ = 0;
  bool open_ = false;
};

}  // namespace islands
