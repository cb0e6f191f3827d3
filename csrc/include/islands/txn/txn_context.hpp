#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "islands/cc/row_lock.hpp"
#include "islands/perf/component_clock.hpp"
#include "islands/storage/row.hpp"

namespace islands {

//! One worker's transaction state, reused across transactions: the locks it holds, the
//! before-images of the rows it changed, and its wait-die timestamp.
class TxnContext {
 public:
  explicit TxnContext(std::size_t columns) : row_bytes_(columns * sizeof(std::int32_t)) {}

  //! Starts a new transaction (not a retry) with timestamp `ts`.
  void begin(std::uint64_t ts) { ts_ = ts & RowLock::kTsMask; }
  std::uint64_t ts() const { return ts_; }  //!< wait-die timestamp, kept across retries
  //! The component clock timing this transaction, or nullptr (breakdown off or not sampled).
  ComponentClock* clock() const { return clock_; }
  void set_clock(ComponentClock* clock) { clock_ = clock; }  //!< see clock()

  //! Remembers a lock to release at the end.
  void held(Row* row, LockMode mode) { locks_.push_back({row, mode}); }
  //! Saves the row's payload so that abort can restore it; call before changing the row.
  void save_before_image(Row* row) {
    undo_rows_.push_back(row);
    const std::size_t at = undo_bytes_.size();
    undo_bytes_.resize(at + row_bytes_);
    std::memcpy(undo_bytes_.data() + at, row->columns(), row_bytes_);
  }
  //! Commit: release every lock, forget the before-images.
  void commit() {
    release_all();
    undo_rows_.clear();
    undo_bytes_.clear();
  }
  //! Abort: restore before-images newest first, then release every lock.
  void abort() {
    for (std::size_t i = undo_rows_.size(); i-- > 0;) {
      std::memcpy(undo_rows_[i]->columns(), undo_bytes_.data() + i * row_bytes_, row_bytes_);
    }
    undo_rows_.clear();
    undo_bytes_.clear();
    release_all();
  }
  std::size_t locks_held() const { return locks_.size(); }  //!< locks held now

 private:
  struct Held {
    Row* row;
    LockMode mode;
  };
  void release_all() {
    ComponentScope scope(clock_, Component::locking);
    for (const Held& h : locks_) RowLock::release(h.row->lock, h.mode);
    locks_.clear();
  }

  std::size_t row_bytes_;
  std::uint64_t ts_ = 0;
  ComponentClock* clock_ = nullptr;
  std::vector<Held> locks_;
  std::vector<Row*> undo_rows_;
  std::vector<unsigned char> undo_bytes_;
};

}  // namespace islands
