#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>

#include "islands/common/spin_latch.hpp"

namespace islands {

//! One transaction's entry in an ActiveTxnList: kept by its worker and linked while the
//! transaction runs (one per worker: a worker runs one transaction at a time).
struct ActiveTxn {
  std::uint64_t begin_tick = 0;  //!< when the transaction began (cycle clock)
  ActiveTxn* prev = nullptr;     //!< neighbours in the list (the list's latch guards them)
  ActiveTxn* next = nullptr;
};

//! The list of active transactions (one part of it: exec/system_structures.hpp keeps one or
//! one per socket), as Shore-MT's transaction list: a doubly linked list under a latch that
//! every transaction's begin and end take. Read by whoever needs the oldest running
//! transaction (the run's monitor reports the longest-running one; a fuzzy checkpoint or log
//! truncation would start from it).
class alignas(64) ActiveTxnList {
 public:
  //! No transaction runs (oldest_begin's answer then).
  static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

  //! Links `txn`, begun at `begin_tick`.
  void add(ActiveTxn& txn, std::uint64_t begin_tick) {
    latch_.lock();
    txn.begin_tick = begin_tick;
    txn.prev = tail_;
    txn.next = nullptr;
    (tail_ ? tail_->next : head_) = &txn;
    tail_ = &txn;
    ++size_;
    latch_.unlock();
  }
  //! Unlinks `txn` (linked by add).
  void remove(ActiveTxn& txn) {
    latch_.lock();
    (txn.prev ? txn.prev->next : head_) = txn.next;
    (txn.next ? txn.next->prev : tail_) = txn.prev;
    txn.prev = txn.next = nullptr;
    --size_;
    latch_.unlock();
  }
  //! Transactions linked now.
  std::size_t size() {
    latch_.lock();
    const std::size_t n = size_;
    latch_.unlock();
    return n;
  }
  //! The earliest begin tick of the transactions linked now (kNone: none).
  std::uint64_t oldest_begin() {
    latch_.lock();
    std::uint64_t oldest = kNone;
    for (const ActiveTxn* t = head_; t != nullptr; t = t->next) oldest = t->begin_tick < oldest ? t->begin_tick : oldest;
    latch_.unlock();
    return oldest;
  }

 private:
  RwSpinLatch latch_;  // exclusive only
  ActiveTxn* head_ = nullptr;
  ActiveTxn* tail_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace islands
