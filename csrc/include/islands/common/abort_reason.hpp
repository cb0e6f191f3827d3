#pragma once
#include <cstddef>
#include <cstdint>

namespace islands {

//! Every reason a transaction attempt can abort; one counter each (X-macro).
#define ISLANDS_ABORT_REASONS(X)                                              \
  X(lock_conflict, "2PL no-wait: a conflicting lock was held")               \
  X(wait_die, "2PL wait-die: a younger transaction met an older lock holder")           \
  X(prepared_conflict, "single-threaded instance: the row is held by an unfinished distributed transaction") \
  X(remote_abort, "2PC: a participant instance voted to abort")                \
  X(occ_validation, "OCC: a row the transaction read was changed by another commit before it committed") \
  X(occ_locked, "OCC: a row it read or writes was locked by another transaction's commit")      \
  X(si_write_conflict, "snapshot isolation: a row it writes has a version newer than its snapshot (first committer wins)") \
  X(si_locked, "snapshot isolation: a row it writes (or reads while it installs) is held by another commit") \
  X(si_not_visible, "snapshot isolation: a row it found was created after its snapshot (indexes keep no versions)")

enum class AbortReason : std::uint8_t {
#define ISLANDS_ENUM_ENTRY(name, doc) name,
  ISLANDS_ABORT_REASONS(ISLANDS_ENUM_ENTRY)
#undef ISLANDS_ENUM_ENTRY
};

//! Number of abort reasons.
constexpr std::size_t kNumAbortReasons = 0
#define ISLANDS_COUNT_ENTRY(name, doc) +1
    ISLANDS_ABORT_REASONS(ISLANDS_COUNT_ENTRY)
#undef ISLANDS_COUNT_ENTRY
    ;

//! The snake_case name of a reason, as it appears in results.
const char* abort_reason_name(AbortReason reason);
//! One line saying what the reason means.
const char* abort_reason_doc(AbortReason reason);

//! Outcome of one transaction attempt: committed, or aborted with a reason.
struct TxnResult {
  bool committed = true;                           //!< true when the attempt committed
  AbortReason reason = AbortReason::lock_conflict;  //!< why it aborted (meaningless if committed)

  //! true when the transaction itself chose to roll back (a specification's user rollback,
  //! such as TATP's missing rows or TPC-C's unused item): undone, finished, not retried.
  bool user_rollback = false;
  static TxnResult commit() { return {}; }
  static TxnResult abort(AbortReason r) { return {false, r}; }
  static TxnResult rollback() { return {false, AbortReason::lock_conflict, true}; }
};

}  // namespace islands
