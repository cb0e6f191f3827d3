#include "islands/bench/counter_locks.hpp"

#include <stdexcept>

namespace islands {

namespace {

// The one list of lock kinds: name and value, in the order the figures show them.
struct Entry {
  const char* name;
  LockKind kind;
};
constexpr Entry kLockKinds[] = {
    {"mutex", LockKind::mutex},
    {"ttas", LockKind::ttas},
    {"mcs", LockKind::mcs},
    {"atomic", LockKind::atomic},
};

}  // namespace

const char* lock_kind_name(LockKind kind) {
  for (const Entry& e : kLockKinds) {
    if (e.kind == kind) return e.name;
  }
  return "unknown";
}

LockKind parse_lock_kind(const std::string& name) {
  std::string choices;
  for (const Entry& e : kLockKinds) {
    if (name == e.name) return e.kind;
    choices += choices.empty() ? e.name : std::string(", ") + e.name;
  }
  throw std::invalid_argument("lock: unknown lock kind '" + name + "' (choose " + choices + ")");
}

std::vector<LockKind> all_lock_kinds() {
  std::vector<LockKind> out;
  for (const Entry& e : kLockKinds) out.push_back(e.kind);
  return out;
}

}  // namespace islands
