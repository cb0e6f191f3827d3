#include "islands/cc/cc_kind.hpp"

#include "islands/common/config_error.hpp"

namespace islands {

const char* cc_kind_name(CcKind kind) {
  switch (kind) {
#define ISLANDS_CC_NAME(kind, name, Scheme) \
  case CcKind::kind:                        \
    return name;
    ISLANDS_CC_SCHEMES(ISLANDS_CC_NAME)
#undef ISLANDS_CC_NAME
  }
  return "unknown";
}

CcKind parse_cc_kind(const std::string& name) {
  std::string names;
#define ISLANDS_CC_PARSE(kind, text, Scheme) \
  if (name == text) return CcKind::kind;     \
  names += (names.empty() ? "" : ", ") + std::string(text);
  ISLANDS_CC_SCHEMES(ISLANDS_CC_PARSE)
#undef ISLANDS_CC_PARSE
  throw ConfigError("engine.cc", "unknown concurrency control '" + name + "' (choose " + names + ")");
}

const char* lock_policy_name(LockPolicy policy) {
  return policy == LockPolicy::no_wait ? "no_wait" : "wait_die";
}

LockPolicy parse_lock_policy(const std::string& name) {
  if (name == "no_wait") return LockPolicy::no_wait;
  if (name == "wait_die") return LockPolicy::wait_die;
  throw ConfigError("engine.lock_policy", "unknown policy '" + name + "' (choose no_wait or wait_die)");
}

}  // namespace islands
