#pragma once
#include "islands/cc/row_lock.hpp"
#include "islands/txn/txn_context.hpp"

namespace islands {

//! CC for a single-threaded instance: no locks at all. Workers are templated on the CC type,
//! so this compiles down to nothing on the hot path.
struct NoLocking {
  static constexpr bool kLocks = false;
  //! Always grants.
  bool lock(Row*, LockMode, TxnContext&, AbortReason&) const { return true; }
};

//! Row-level strict two-phase locking: locks are taken as rows are touched and released at
//! commit or abort (by TxnContext).
struct TwoPhaseLocking {
  static constexpr bool kLocks = true;
  LockPolicy policy = LockPolicy::wait_die;  //!< what a conflicting request does

  //! Takes `mode` on the row for the context's transaction; false with `reason` on conflict.
  bool lock(Row* row, LockMode mode, TxnContext& txn, AbortReason& reason) const {
    if (!RowLock::acquire(row->lock, mode, txn.ts(), policy, reason)) return false;
    txn.held(row, mode);
    return true;
  }
};

}  // namespace islands
