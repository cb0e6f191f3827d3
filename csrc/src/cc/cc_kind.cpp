#include "islands/cc/cc_kind.hpp"

#include <stdexcept>

namespace islands {

const char* cc_kind_name(CcKind kind) { return kind == CcKind::none ? "none" : "2pl"; }

CcKind parse_cc_kind(const std::string& name) {
  if (name == "none") return CcKind::none;
  if (name == "2pl") return CcKind::two_pl;
  throw std::invalid_argument("cc: unknown concurrency control '" + name + "' (choose none or 2pl)");
}

const char* lock_policy_name(LockPolicy policy) {
  return policy == LockPolicy::no_wait ? "no_wait" : "wait_die";
}

LockPolicy parse_lock_policy(const std::string& name) {
  if (name == "no_wait") return LockPolicy::no_wait;
  if (name == "wait_die") return LockPolicy::wait_die;
  throw std::invalid_argument("lock_policy: unknown policy '" + name + "' (choose no_wait or wait_die)");
}

}  // namespace islands
