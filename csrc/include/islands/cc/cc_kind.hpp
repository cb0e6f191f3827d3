#pragma once
#include <string>

namespace islands {

//! Concurrency control of an instance, chosen at run time.
//! none: a single-threaded instance, no locks and no latches.
//! two_pl: row-level shared/exclusive two-phase locking, locks held to commit (strict 2PL).
enum class CcKind { none, two_pl };

//! What a 2PL transaction does when a lock it asks for conflicts.
//! no_wait: abort at once (no deadlock possible).
//! wait_die: an older transaction (earlier first-attempt timestamp) waits for younger holders,
//! a younger one aborts ("dies") and retries with its original timestamp, so it ages and wins
//! eventually. Deadlock-free because waits only ever go from older to younger.
enum class LockPolicy { no_wait, wait_die };

const char* cc_kind_name(CcKind kind);          //!< "none" or "2pl"
CcKind parse_cc_kind(const std::string& name);  //!< throws std::invalid_argument on others
const char* lock_policy_name(LockPolicy policy);               //!< "no_wait" or "wait_die"
LockPolicy parse_lock_policy(const std::string& name);         //!< throws on others

}  // namespace islands
