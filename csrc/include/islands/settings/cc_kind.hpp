#pragma once
#include "islands/common/enum_names.hpp"

namespace islands {

//! The concurrency-control schemes, one line each: X(kind, "name", Scheme). The one list the
//! enum, the names, the settings' choices and the dispatch (with_cc, cc_dispatch.hpp) come from.
//! none (NoLocking): a single-threaded instance, no locks and no latches.
//! 2pl (TwoPhaseLocking): row-level shared/exclusive two-phase locking, locks held to commit
//! (strict 2PL).
//! table_2pl (TableLocking): one shared/exclusive lock per table (paper 004's H2 and HSQLDB),
//! exclusive locks held to commit; with engine.latching off the indexes run without latches.
//! occ (OptimisticCc, optimistic_cc.hpp): Silo's optimistic concurrency control: reads record
//! TIDs, writes are buffered, commit locks the write set, validates the reads and installs.
//! mvcc (MultiVersionCc, multi_version_cc.hpp): snapshot isolation: version chains, a read
//! timestamp per transaction, first-committer-wins, garbage collection of old versions.
//! Adding a scheme: its struct (the interface of those, concurrency_control.hpp) and a line.
#define ISLANDS_CC_SCHEMES(X)         \
  X(none, "none", NoLocking)          \
  X(two_pl, "2pl", TwoPhaseLocking)   \
  X(table_2pl, "table_2pl", TableLocking) \
  X(occ, "occ", OptimisticCc)          \
  X(mvcc, "mvcc", MultiVersionCc)

//! Concurrency control of an instance, chosen at run time.
enum class CcKind {
#define ISLANDS_CC_ENUM(kind, name, Scheme) kind,
  ISLANDS_CC_SCHEMES(ISLANDS_CC_ENUM)
#undef ISLANDS_CC_ENUM
};

template <>
struct EnumNames<CcKind> {
#define ISLANDS_CC_NAME(kind, name, Scheme) {CcKind::kind, name},
  static constexpr EnumName<CcKind> table[] = {ISLANDS_CC_SCHEMES(ISLANDS_CC_NAME)};
#undef ISLANDS_CC_NAME
};

//! What a 2PL transaction does when a lock it asks for conflicts.
//! no_wait: abort at once (no deadlock possible).
//! wait_die: an older transaction (earlier first-attempt timestamp) waits for younger holders,
//! a younger one aborts ("dies") and retries with its original timestamp, so it ages and wins
//! eventually. Deadlock-free because waits only ever go from older to younger.
enum class LockPolicy { no_wait, wait_die };

template <>
struct EnumNames<LockPolicy> {
  static constexpr EnumName<LockPolicy> table[] = {{LockPolicy::no_wait, "no_wait"}, {LockPolicy::wait_die, "wait_die"}};
};

//! What a transaction may see of others (engine.isolation).
//! serializable: read locks held to commit (every committed history is conflict-serializable).
//! read_committed: read locks released when a statement ends (where a workload says one does:
//! TPC-C's read-only procedures, stock-level also after its district); write locks held to
//! commit, so nothing uncommitted is read.
//! snapshot: each transaction reads one snapshot (the versions committed when it began) and
//! the first committer of two concurrent writers of a row wins (engine.cc = mvcc only, which
//! runs at no other level; write skew is allowed).
enum class IsolationLevel { serializable, read_committed, snapshot };

template <>
struct EnumNames<IsolationLevel> {
  static constexpr EnumName<IsolationLevel> table[] = {{IsolationLevel::serializable, "serializable"},
                                                       {IsolationLevel::read_committed, "read_committed"},
                                                       {IsolationLevel::snapshot, "snapshot"}};
};

}  // namespace islands
