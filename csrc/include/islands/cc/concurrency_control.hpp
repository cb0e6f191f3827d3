#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include "islands/txn/row_lock.hpp"
#include "islands/settings/engine_config.hpp"
#include "islands/txn/txn_context.hpp"

namespace islands {

// The interface every scheme has (ISLANDS_CC_SCHEMES, cc_kind.hpp):
//   static constexpr bool kLocks;               whether it takes locks (and so can undo;
//                                               failures call ctx.abort(), indexes latched)
//   static constexpr bool kInPlace;             whether writes change the row itself (a
//                                               workload saves before-images when kLocks too)
//                                               or a private image installed at commit (occ)
//   static S configured(const EngineConfig&);   the scheme as an engine config sets it up
//   distributed() const                         the scheme of this instance's parts of
//                                               distributed transactions (no-wait 2PL kind)
//   bool lock(Row*, LockMode, TxnContext&, AbortReason&, std::uint32_t table = 0) const;
//       access to a row of table `table` (a workload's table number, < TableLocking::kTables)
//   bool lock_table(std::uint32_t table, LockMode, TxnContext&, AbortReason&) const;
//       the whole table before a statement touches its index (a no-op but for table_2pl)
//   void end_statement(TxnContext&) const;      read committed: release the read locks
// The access API the workloads use (every row a transaction reads or writes goes through it):
//   Row* open(Row*, LockMode, TxnContext&, AbortReason&, std::uint32_t table, std::size_t columns) const;
//       the image of a row of `columns` payload columns to read (shared) or write (exclusive):
//       the row itself under the locking schemes (once locked), a private copy under occ;
//       nullptr with the reason on conflict. A later multi-version scheme hands out versions here.
//   bool insert(Row*, TxnContext&, AbortReason&, std::uint32_t table) const;
//       a row being inserted (fresh, or one an aborted insert left), written in place, held
//       exclusively until commit or abort
//   static Row* origin(Row* image);             the row an image stands for (deletes name it)
//   bool lock_writes(TxnContext&, AbortReason&) const;
//       the first half of validate: occ locks its write set (a 2PC coordinator does before its
//       fragments go out); the locking schemes hold their locks already; false: the caller
//       aborts the context
//   bool validate(TxnContext&, AbortReason&) const;
//       commit's first step, after the workload's part succeeded: occ locks its write set
//       (unless lock_writes did) and validates its reads (the 2PC vote; again on a validate
//       request), the locking schemes have nothing to check; false: the caller aborts
//   bool reads_to_validate(TxnContext&) const;  whether validate checks any read (occ)
// A scheme reports each access it grants to the context (TxnContext::accessed: history
// recording, one branch when off).

struct TwoPhaseLocking;

//! The access API of the schemes that work on rows in place (none, 2pl, table_2pl), given
//! their lock(): the image is the row itself once locked, and there is nothing to validate.
template <class Scheme>
struct InPlaceAccess {
  static constexpr bool kInPlace = true;  //!< writes change the row itself
  //! The row itself, once locked in `mode` (see the scheme's lock).
  Row* open(Row* row, LockMode mode, TxnContext& txn, AbortReason& reason, std::uint32_t table, std::size_t) const {
    return self().lock(row, mode, txn, reason, table) ? row : nullptr;
  }
  //! A row being inserted: locked exclusively.
  bool insert(Row* row, TxnContext& txn, AbortReason& reason, std::uint32_t table = 0) const {
    return self().lock(row, LockMode::exclusive, txn, reason, table);
  }
  static Row* origin(Row* row) { return row; }  //!< in place: the row is its own image
  //! Nothing to lock at commit: every lock was taken on access.
  bool lock_writes(TxnContext&, AbortReason&) const { return true; }
  //! Nothing to validate: locks kept every access consistent.
  bool validate(TxnContext&, AbortReason&) const { return true; }
  //! No reads to validate: they are locked.
  bool reads_to_validate(TxnContext&) const { return false; }

 private:
  const Scheme& self() const { return static_cast<const Scheme&>(*this); }
};

//! CC for a single-threaded instance: no locks, no latches, no atomic read-modify-writes. The
//! one thing it checks (a plain load of the row's lock word, on the cache line it reads
//! anyway) is that no unfinished distributed transaction holds the row: those still lock
//! (see TwoPhaseLocking), because the instance serves other work before their decision.
//! Serial execution is serializable, so it meets read committed too.
struct NoLocking : InPlaceAccess<NoLocking> {
  static constexpr bool kLocks = false;
  IsolationLevel isolation = IsolationLevel::serializable;  //!< its distributed parts' level
  //! The scheme as an engine config sets it up.
  static NoLocking configured(const EngineConfig& engine) { return NoLocking{{}, engine.isolation}; }
  //! The scheme of this instance's parts of distributed transactions (see TwoPhaseLocking).
  TwoPhaseLocking distributed() const;
  //! Grants unless a distributed transaction holds the row in a conflicting mode.
  bool lock(Row* row, LockMode mode, TxnContext& txn, AbortReason& reason, std::uint32_t = 0) const {
    const std::uint64_t word = row->lock.load(std::memory_order_relaxed);
    if (word == 0 || (mode == LockMode::shared && !(word & RowLock::kExclusive))) {
      txn.accessed(row, mode, false);  // installed at commit: a failed attempt leaves nothing
      return true;
    }
    reason = AbortReason::prepared_conflict;
    return false;
  }
  //! Nothing to lock.
  bool lock_table(std::uint32_t, LockMode, TxnContext&, AbortReason&) const { return true; }
  //! Nothing to release.
  void end_statement(TxnContext&) const {}
};

//! Row-level strict two-phase locking: locks are taken as rows are touched and released at
//! commit or abort (by TxnContext); under read committed, read locks go at each statement's end.
struct TwoPhaseLocking : InPlaceAccess<TwoPhaseLocking> {
  static constexpr bool kLocks = true;
  LockPolicy policy = LockPolicy::wait_die;  //!< what a conflicting request does
  IsolationLevel isolation = IsolationLevel::serializable;  //!< when read locks go
  bool unlocked_reads = false;  //!< engine.test_skip_read_locks: a broken mode for the checker's tests

  //! The scheme as an engine config sets it up (its lock policy and isolation level).
  static TwoPhaseLocking configured(const EngineConfig& engine) {
    return TwoPhaseLocking{{}, engine.lock_policy, engine.isolation, engine.test_skip_read_locks};
  }

  //! The scheme of this instance's parts of distributed transactions: no-wait, because a
  //! participant (or a coordinator waiting for votes) must keep serving the decisions that
  //! release other transactions' locks rather than wait for a lock.
  TwoPhaseLocking distributed() const { return TwoPhaseLocking{{}, LockPolicy::no_wait, isolation, unlocked_reads}; }

  //! Takes `mode` on the row for the context's transaction; false with `reason` on conflict.
  bool lock(Row* row, LockMode mode, TxnContext& txn, AbortReason& reason, std::uint32_t = 0) const {
    if (__builtin_expect(unlocked_reads && mode == LockMode::shared, 0)) {
      txn.accessed(row, mode, true);
      return true;
    }
    if (!RowLock::acquire(row->lock, mode, txn.ts(), policy, reason)) return false;
    txn.held(row, mode);
    txn.accessed(row, mode, true);
    return true;
  }
  //! Row locks only.
  bool lock_table(std::uint32_t, LockMode, TxnContext&, AbortReason&) const { return true; }
  //! Read committed: the statement's read locks go.
  void end_statement(TxnContext& txn) const {
    if (isolation == IsolationLevel::read_committed) txn.release_shared();
  }
};

inline TwoPhaseLocking NoLocking::distributed() const {
  return TwoPhaseLocking{{}, LockPolicy::no_wait, isolation, false};
}

//! Table-level strict two-phase locking (paper 004's H2 and HSQLDB): one shared/exclusive lock
//! word per table (RowLock's format, so the same policies), taken the first time a transaction
//! touches the table in a mode, exclusive held to commit, shared to commit (serializable) or to
//! the statement's end (read committed). A shared hold becomes exclusive when the transaction
//! is its only holder; otherwise the upgrade is a conflict. With these locks no index is read
//! while it is written, so indexes can run without latches (engine.latching off; see
//! RunConfig::validate_sites and the workloads' lock_table calls).
struct TableLocking : InPlaceAccess<TableLocking> {
  static constexpr bool kLocks = true;
  static constexpr std::uint32_t kTables = 64;  //!< table numbers a workload may use
  //! The instance's lock words, one cache line each, shared by its workers.
  struct Words {
    struct alignas(64) Word {
      std::atomic<std::uint64_t> word{0};
    };
    Word tables[kTables];
  };
  LockPolicy policy = LockPolicy::wait_die;                //!< what a conflicting request does
  IsolationLevel isolation = IsolationLevel::serializable;  //!< when read locks go
  bool unlocked_reads = false;                             //!< see TwoPhaseLocking
  std::shared_ptr<Words> words = std::make_shared<Words>();  //!< shared by copies (distributed())

  //! The scheme as an engine config sets it up: fresh lock words.
  static TableLocking configured(const EngineConfig& engine) {
    TableLocking scheme;
    scheme.policy = engine.lock_policy;
    scheme.isolation = engine.isolation;
    scheme.unlocked_reads = engine.test_skip_read_locks;
    return scheme;
  }
  //! The same lock words, no-wait (see TwoPhaseLocking::distributed).
  TableLocking distributed() const {
    TableLocking scheme = *this;
    scheme.policy = LockPolicy::no_wait;
    return scheme;
  }

  //! Takes `mode` on table `table` unless the transaction holds it so already.
  bool lock_table(std::uint32_t table, LockMode mode, TxnContext& txn, AbortReason& reason) const {
    const std::uint64_t bit = 1ULL << (table % kTables);
    if (txn.tables_exclusive() & bit) return true;
    std::atomic<std::uint64_t>& word = words->tables[table % kTables].word;
    if (mode == LockMode::shared) {
      if ((txn.tables_shared() & bit) || unlocked_reads) return true;
      if (!RowLock::acquire(word, mode, txn.ts(), policy, reason)) return false;
      txn.held(&word, mode);
      txn.tables_shared() |= bit;
      return true;
    }
    if (txn.tables_shared() & bit) {
      // Upgrade: only as the sole reader (two upgraders would wait for each other).
      std::uint64_t w = word.load(std::memory_order_relaxed);
      if ((w & RowLock::kReaderMask) != RowLock::kOneReader ||
          !word.compare_exchange_strong(w, RowLock::kExclusive | (w & RowLock::kTsMask), std::memory_order_acquire,
                                        std::memory_order_relaxed)) {
        reason = policy == LockPolicy::no_wait ? AbortReason::lock_conflict : AbortReason::wait_die;
        return false;
      }
      txn.upgraded(&word);
      txn.tables_shared() &= ~bit;
    } else {
      if (!RowLock::acquire(word, mode, txn.ts(), policy, reason)) return false;
      txn.held(&word, mode);
    }
    txn.tables_exclusive() |= bit;
    return true;
  }
  //! Access to a row of table `table`: that table's lock in `mode`.
  bool lock(Row* row, LockMode mode, TxnContext& txn, AbortReason& reason, std::uint32_t table = 0) const {
    if (!lock_table(table, mode, txn, reason)) return false;
    txn.accessed(row, mode, true);
    return true;
  }
  //! Read committed: the statement's read locks go.
  void end_statement(TxnContext& txn) const {
    if (isolation == IsolationLevel::read_committed) txn.release_shared();
  }
};

}  // namespace islands
