#pragma once
#include "islands/cc/row_lock.hpp"
#include "islands/exec/engine_config.hpp"
#include "islands/txn/txn_context.hpp"

namespace islands {

//! CC for a single-threaded instance: no locks, no latches, no atomic read-modify-writes. The
//! one thing it checks (a plain load of the row's lock word, on the cache line it reads
//! anyway) is that no unfinished distributed transaction holds the row: those still lock
//! (see TwoPhaseLocking), because the instance serves other work before their decision.
struct TwoPhaseLocking;

struct NoLocking {
  static constexpr bool kLocks = false;
  //! The scheme as an engine config sets it up.
  static NoLocking configured(const EngineConfig&) { return {}; }
  //! The scheme of this instance's parts of distributed transactions (see TwoPhaseLocking).
  TwoPhaseLocking distributed() const;
  //! Grants unless a distributed transaction holds the row in a conflicting mode.
  bool lock(Row* row, LockMode mode, TxnContext&, AbortReason& reason) const {
    const std::uint64_t word = row->lock.load(std::memory_order_relaxed);
    if (word == 0 || (mode == LockMode::shared && !(word & RowLock::kExclusive))) return true;
    reason = AbortReason::prepared_conflict;
    return false;
  }
};

//! Row-level strict two-phase locking: locks are taken as rows are touched and released at
//! commit or abort (by TxnContext).
struct TwoPhaseLocking {
  static constexpr bool kLocks = true;
  LockPolicy policy = LockPolicy::wait_die;  //!< what a conflicting request does

  //! The scheme as an engine config sets it up (its lock policy).
  static TwoPhaseLocking configured(const EngineConfig& engine) { return TwoPhaseLocking{engine.lock_policy}; }

  //! The scheme of this instance's parts of distributed transactions: no-wait, because a
  //! participant (or a coordinator waiting for votes) must keep serving the decisions that
  //! release other transactions' locks rather than wait for a lock.
  TwoPhaseLocking distributed() const { return TwoPhaseLocking{LockPolicy::no_wait}; }

  //! Takes `mode` on the row for the context's transaction; false with `reason` on conflict.
  bool lock(Row* row, LockMode mode, TxnContext& txn, AbortReason& reason) const {
    if (!RowLock::acquire(row->lock, mode, txn.ts(), policy, reason)) return false;
    txn.held(row, mode);
    return true;
  }
};

inline TwoPhaseLocking NoLocking::distributed() const { return TwoPhaseLocking{LockPolicy::no_wait}; }

}  // namespace islands
