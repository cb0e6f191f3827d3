#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "islands/cc/row_lock.hpp"
#include "islands/storage/row.hpp"

namespace islands {

//! One worker's transaction state, reused across transactions: the locks it holds, the
//! before-images of the rows it changed (undo), their after-images when the log is on (redo),
//! and its wait-die timestamp. Workloads report every row they change with wrote(), so that
//! any workload writing through a TxnContext is logged.
class TxnContext {
 public:
  explicit TxnContext(std::size_t columns) : row_bytes_(columns * sizeof(std::int32_t)) {}

  //! Starts a new transaction (not a retry) with timestamp `ts`.
  void begin(std::uint64_t ts) { ts_ = ts & RowLock::kTsMask; }
  std::uint64_t ts() const { return ts_; }  //!< wait-die timestamp, kept across retries

  //! Remembers a lock to release at the end.
  void held(Row* row, LockMode mode) { locks_.push_back({row, mode}); }
  //! Saves the row's payload so that abort can restore it; call before changing the row.
  void save_before_image(Row* row) {
    undo_rows_.push_back(row);
    const std::size_t at = undo_bytes_.size();
    undo_bytes_.resize(at + row_bytes_);
    std::memcpy(undo_bytes_.data() + at, row->columns(), row_bytes_);
  }
  //! Captures after-images from now on (the log is on); off costs one branch per written row.
  void capture_redo(bool on) { capture_redo_ = on; }
  //! Records the row's after-image for the log; call after changing the row.
  void wrote(const Row* row) {
    if (!capture_redo_) return;
    const std::size_t at = redo_.size();
    redo_.resize(at + 8 + row_bytes_);
    std::memcpy(redo_.data() + at, &row->key, 8);
    std::memcpy(redo_.data() + at + 8, row->columns(), row_bytes_);
  }
  //! Redo entries of the transaction so far: [u64 key][after-image] each.
  const std::vector<unsigned char>& redo() const { return redo_; }
  //! Payload columns of each redo entry.
  std::uint16_t columns() const { return static_cast<std::uint16_t>(row_bytes_ / sizeof(std::int32_t)); }
  //! Commit: release every lock, forget the before- and after-images.
  void commit() {
    release_all();
    undo_rows_.clear();
    undo_bytes_.clear();
    redo_.clear();
  }
  //! Abort: restore before-images newest first, then release every lock.
  void abort() {
    for (std::size_t i = undo_rows_.size(); i-- > 0;) {
      std::memcpy(undo_rows_[i]->columns(), undo_bytes_.data() + i * row_bytes_, row_bytes_);
    }
    undo_rows_.clear();
    undo_bytes_.clear();
    redo_.clear();
    release_all();
  }
  std::size_t locks_held() const { return locks_.size(); }  //!< locks held now

 private:
  struct Held {
    Row* row;
    LockMode mode;
  };
  void release_all() {
    for (const Held& h : locks_) RowLock::release(h.row->lock, h.mode);
    locks_.clear();
  }

  std::size_t row_bytes_;
  std::uint64_t ts_ = 0;
  std::vector<Held> locks_;
  std::vector<Row*> undo_rows_;
  std::vector<unsigned char> undo_bytes_;
  bool capture_redo_ = false;
  std::vector<unsigned char> redo_;
};

}  // namespace islands
