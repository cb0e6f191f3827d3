#pragma once
#include <cstdint>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

#include "islands/common/pod_vector.hpp"
#include "islands/txn/row_lock.hpp"
#include "islands/log/redo_entry.hpp"
#include "islands/perf/component_clock.hpp"
#include "islands/storage/epoch_gate.hpp"
#include "islands/storage/row.hpp"
#include "islands/txn/occ_sets.hpp"
#include "islands/txn/snapshot_txn.hpp"
#include "islands/txn/txn_history.hpp"

namespace islands {

//! One worker's transaction state, reused across transactions: the locks it holds, the
//! before-images of the rows it changed, the rows it inserted, their after-images when the
//! log is on (redo; a workload reports each row it changed with wrote()), and its wait-die
//! timestamp.
//! Rows of different widths (several tables) may be saved in one transaction.
class TxnContext {
 public:
  //! columns: the payload width save_before_image(row) assumes when given none.
  explicit TxnContext(std::size_t columns) : row_bytes_(columns * sizeof(std::int32_t)) {}
  ~TxnContext() {
    if (slot_ != nullptr) gate_->leave(slot_);
  }
  TxnContext(const TxnContext&) = delete;
  TxnContext& operator=(const TxnContext&) = delete;

  //! Joins `gate` (the instance's reclamation gate, storage/epoch_gate.hpp): from now on the
  //! rows this context may hold are announced from begin (or retry) until commit or abort ends,
  //! so that a row another transaction releases meanwhile is not reused under it. Once, before
  //! the first begin; the gate must outlive the context.
  void reclaim_with(EpochGate* gate) {
    gate_ = gate;
    slot_ = gate->join();
  }
  //! Starts a new transaction (not a retry) with timestamp `ts`.
  void begin(std::uint64_t ts) {
    ts_ = ts & RowLock::kTsMask;
    wall_ = 0;
    if (slot_ != nullptr) gate_->enter(*slot_);
  }
  //! Starts another attempt of the transaction after an abort (which let go of every row).
  void retry() {
    if (slot_ != nullptr) gate_->enter(*slot_);
  }
  std::uint64_t ts() const { return ts_; }  //!< wait-die timestamp, kept across retries
  //! The transaction's wall-clock time in whole seconds (TPC-C's dates): read from the clock at
  //! its first call and the same for the rest of the transaction, retries included, so that a
  //! command log records it (wall_seconds_read) and a replay fixes it (set_wall_seconds).
  std::int32_t wall_seconds() {
    if (wall_ == 0) wall_ = static_cast<std::int32_t>(std::time(nullptr));
    return wall_;
  }
  std::int32_t wall_seconds_read() const { return wall_; }   //!< 0: not read in this transaction
  void set_wall_seconds(std::int32_t seconds) { wall_ = seconds; }  //!< see wall_seconds()
  //! The component clock timing this transaction, or nullptr (breakdown off or not sampled).
  ComponentClock* clock() const { return clock_; }
  void set_clock(ComponentClock* clock) { clock_ = clock; }  //!< see clock()

  //! Remembers a lock to release at the end.
  void held(Row* row, LockMode mode) { locks_.push_back({&row->lock, mode}); }
  //! The same for a lock word that is not a row's (table-level locking: cc/table_lock.hpp).
  void held(std::atomic<std::uint64_t>* word, LockMode mode) { locks_.push_back({word, mode}); }
  //! A shared hold of `word` became exclusive (a table lock's upgrade).
  void upgraded(const std::atomic<std::uint64_t>* word) {
    for (Held& h : locks_) {
      if (h.word == word) h.mode = LockMode::exclusive;
    }
  }
  //! Table locks (bit t: table t) this transaction holds shared and exclusive; table-level
  //! schemes keep them, release_all and release_shared clear them.
  std::uint64_t& tables_shared() { return tables_shared_; }
  std::uint64_t& tables_exclusive() { return tables_exclusive_; }  //!< see tables_shared
  //! Read committed: releases the shared locks held now (a statement ended), keeps the rest.
  void release_shared() {
    ComponentScope scope(clock_, Component::locking);
    std::size_t kept = 0;
    for (const Held& h : locks_) {
      if (h.mode == LockMode::shared) {
        RowLock::release(*h.word, h.mode);
      } else {
        locks_[kept++] = h;
      }
    }
    locks_.truncate(kept);
    tables_shared_ = 0;
  }

  //! The optimistic (OCC) state: read and write sets, images, inserted rows (OptimisticCc;
  //! under snapshot isolation the write set and inserts, MultiVersionCc).
  OccSets& occ() { return occ_; }
  //! The snapshot-isolation state (MultiVersionCc), made on first use with the instance's
  //! `state`, its snapshot opened unless the attempt has one.
  SnapshotTxn& snapshot(const std::shared_ptr<MultiVersionState>& state) {
    if (__builtin_expect(!snapshot_, 0)) snapshot_ = std::make_unique<SnapshotTxn>(state);
    snapshot_->begin();
    return *snapshot_;
  }

  //! Records this context's committed attempts into `versions` and `sink` (history mode).
  void record_history(VersionMap& versions, HistorySink& sink) {
    history_ = std::make_unique<TxnHistory>(versions, sink);
  }
  //! The attempt recorder, or nullptr when history recording is off.
  TxnHistory* history() const { return history_.get(); }
  //! A scheme granted access to `row` in `mode` (eager: a write's version is installed now).
  //! Off, one branch.
  void accessed(const Row* row, LockMode mode, bool eager) {
    if (__builtin_expect(history_ != nullptr, 0)) record(row, mode, eager);
  }
  //! A multi-version scheme granted access to `row` at history version `version` (the
  //! snapshot's, or the one a write's image was copied from) under read timestamp `rts`.
  void accessed_version(const Row* row, LockMode mode, std::uint64_t version, std::uint64_t rts) {
    if (__builtin_expect(history_ != nullptr, 0)) record_version(row, mode, version, rts);
  }
  //! Saves the row's payload so that abort can restore it; call before changing the row.
  void save_before_image(Row* row) { save_before_image(row, row_bytes_ / sizeof(std::int32_t)); }
  //! The same for a row of `columns` payload columns (a table of another width).
  void save_before_image(Row* row, std::size_t columns) {
    const std::size_t bytes = columns * sizeof(std::int32_t);
    const std::size_t at = undo_bytes_.size();
    undo_.push_back({row, at, bytes});
    // One copy, appended: a resize would zero the bytes first (a memset per updated row).
    const auto* payload = reinterpret_cast<const unsigned char*>(row->columns());
    undo_bytes_.append(payload, bytes);
  }
  //! Remembers a row this transaction inserted, so that abort can take it back: the row gets
  //! Row::kDeletedKey (readers and checks skip such rows) and `erase(key)` runs, if given, to
  //! take it out of its indexes.
  void inserted(Row* row, void (*erase)(void* owner, std::uint64_t key) = nullptr,
                void* owner = nullptr) {
    inserts_.push_back({row, row->key, erase, owner});
  }
  //! Deletes a row (held exclusively) at commit: `erase(owner, key)` takes it out of its
  //! indexes and the row gets Row::kDeletedKey while the lock is still held, then, once every
  //! lock is released, `recycle(owner, row, key)` gives its memory back. Abort forgets it.
  //! With capture on, the delete joins the redo (a delete entry, redo_entry.hpp) in its place
  //! among the after-images.
  void deleting(Row* row, void (*erase)(void* owner, std::uint64_t key),
                void (*recycle)(void* owner, Row* row, std::uint64_t key), void* owner) {
    deletes_.push_back({row, row->key, erase, recycle, owner});
    if (capture_redo_) append_redo_delete(redo_, row->key);
  }
  //! Captures after-images from now on (the log is on); off costs one branch per written row.
  void capture_redo(bool on) { capture_redo_ = on; }
  //! Records the row's after-image for the log; call after changing (or inserting) the row.
  //! An image narrower than the row (`columns` below its width) records its first columns.
  [[gnu::always_inline]] void wrote(const Row* row) { wrote(row, row_bytes_ / sizeof(std::int32_t)); }
  //! The same for a row of `columns` payload columns (a table of another width).
  [[gnu::always_inline]] void wrote(const Row* row, std::size_t columns) {
    if (capture_redo_) append_redo_entry(redo_, row->key, row->columns(), columns);
  }
  //! Redo entries of the transaction so far (see redo_entry.hpp).
  const PodVector<unsigned char>& redo() const { return redo_; }
  //! Payload columns of the widest row (recorded in log headers: a log fits one configuration).
  std::uint16_t columns() const { return static_cast<std::uint16_t>(row_bytes_ / sizeof(std::int32_t)); }
  //! Commit: release every lock, forget the before- and after-images and inserts.
  //! Under OCC (validated: its write set locked) the images are installed first, and the
  //! rows get the commit's TID (unlocked) after the deletes.
  //! Under snapshot isolation the install takes the commit timestamp and records the history
  //! at it (SnapshotTxn::install).
  void commit() {
    const bool occ = occ_.active();
    const bool snapshot = occ && snapshot_ && snapshot_->open();
    if (__builtin_expect(snapshot, 0)) {
      snapshot_->install(occ_, history_.get());
    } else {
      if (history_) history_->commit();
      if (__builtin_expect(occ, 0)) occ_.install();
    }
    for (const Delete& del : deletes_) {
      if (del.erase) del.erase(del.owner, del.key);
      del.row->key = Row::kDeletedKey;
    }
    if (__builtin_expect(occ, 0)) {
      if (snapshot) {
        snapshot_->unlock_committed(occ_, history_.get());
      } else {
        occ_.unlock_committed();
      }
      occ_.clear();
    }
    release_all();
    for (const Delete& del : deletes_) {
      if (del.recycle) del.recycle(del.owner, del.row, del.key);
    }
    deletes_.clear();
    undo_.clear();
    undo_bytes_.clear();
    inserts_.clear();
    redo_.clear();
    if (slot_ != nullptr) EpochGate::exit(*slot_);  // holds no row any more
  }
  //! Abort: take back inserts and restore before-images newest first, then release every lock.
  void abort() {
    if (history_) history_->abort();
    for (std::size_t i = inserts_.size(); i-- > 0;) {
      const Insert& ins = inserts_[i];
      if (ins.erase) ins.erase(ins.owner, ins.key);
      ins.row->key = Row::kDeletedKey;
    }
    for (std::size_t i = undo_.size(); i-- > 0;) {
      std::memcpy(undo_[i].row->columns(), undo_bytes_.data() + undo_[i].offset, undo_[i].bytes);
    }
    if (__builtin_expect(occ_.active(), 0)) {
      // OCC and snapshot isolation: nothing was installed; the locks it took go.
      if (snapshot_ && snapshot_->open()) {
        snapshot_->unlock_aborted(occ_);
      } else {
        occ_.unlock_aborted();
      }
      occ_.clear();
    }
    if (snapshot_) snapshot_->end();  // one whose first access failed holds nothing else
    undo_.clear();
    undo_bytes_.clear();
    inserts_.clear();
    deletes_.clear();
    redo_.clear();
    release_all();
    if (slot_ != nullptr) EpochGate::exit(*slot_);  // holds no row any more (a retry enters again)
  }
  std::size_t locks_held() const { return locks_.size(); }  //!< locks held now

 private:
  // Out of line, so that the workers' flattened hot paths do not inline the recorder.
  [[gnu::noinline]] void record(const Row* row, LockMode mode, bool eager) {
    if (mode == LockMode::shared) {
      history_->read(row);
    } else {
      history_->write(row, eager);
    }
  }
  [[gnu::noinline]] void record_version(const Row* row, LockMode mode, std::uint64_t version, std::uint64_t rts) {
    if (mode == LockMode::shared) {
      history_->read(row, version, rts);
    } else {
      history_->write(row, version);
    }
  }
  struct Held {
    std::atomic<std::uint64_t>* word;
    LockMode mode;
  };
  void release_all() {
    ComponentScope scope(clock_, Component::locking);
    for (const Held& h : locks_) RowLock::release(*h.word, h.mode);
    locks_.clear();
    tables_shared_ = tables_exclusive_ = 0;
  }

  std::size_t row_bytes_;
  std::uint64_t ts_ = 0;
  ComponentClock* clock_ = nullptr;
  PodVector<Held> locks_;
  std::uint64_t tables_shared_ = 0, tables_exclusive_ = 0;
  std::unique_ptr<TxnHistory> history_;  // history recording only
  OccSets occ_;                          // OCC only
  std::unique_ptr<SnapshotTxn> snapshot_;  // snapshot isolation only
  struct Undo {
    Row* row;
    std::size_t offset;  // of its before-image in undo_bytes_
    std::size_t bytes;
  };
  struct Insert {
    Row* row;
    std::uint64_t key;
    void (*erase)(void*, std::uint64_t);
    void* owner;
  };
  struct Delete {
    Row* row;
    std::uint64_t key;
    void (*erase)(void*, std::uint64_t);
    void (*recycle)(void*, Row*, std::uint64_t);
    void* owner;
  };
  PodVector<Undo> undo_;
  PodVector<Insert> inserts_;
  PodVector<Delete> deletes_;
  PodVector<unsigned char> undo_bytes_;
  bool capture_redo_ = false;
  std::int32_t wall_ = 0;  // wall_seconds() of this transaction (0: not read yet)
  PodVector<unsigned char> redo_;
  EpochGate* gate_ = nullptr;         // reclamation gate (null: none)
  EpochGate::Slot* slot_ = nullptr;   // this context's announcement in it
};

}  // namespace islands
