#include "islands/workload/workload_kind.hpp"

#include <stdexcept>

namespace islands {
namespace {

struct Entry {
  const char* name;
  WorkloadKind kind;
  bool logs;  // its writes reach the write-ahead log (the workload's kLogs)
};
// The registry: one line per workload.
constexpr Entry kWorkloads[] = {
    {"micro", WorkloadKind::micro, true},
    {"tpcb", WorkloadKind::tpcb, true},
    {"tatp", WorkloadKind::tatp, false},
    {"tpcc", WorkloadKind::tpcc, false},
};

}  // namespace

const char* workload_kind_name(WorkloadKind kind) {
  for (const Entry& e : kWorkloads) {
    if (e.kind == kind) return e.name;
  }
  return "unknown";
}

bool workload_logs(WorkloadKind kind) {
  for (const Entry& e : kWorkloads) {
    if (e.kind == kind) return e.logs;
  }
  return false;
}

std::vector<std::string> logged_workload_names() {
  std::vector<std::string> out;
  for (const Entry& e : kWorkloads) {
    if (e.logs) out.emplace_back(e.name);
  }
  return out;
}

WorkloadKind parse_workload_kind(const std::string& name) {
  for (const Entry& e : kWorkloads) {
    if (name == e.name) return e.kind;
  }
  std::string names;
  for (const Entry& e : kWorkloads) names += (names.empty() ? "" : ", ") + std::string(e.name);
  throw std::invalid_argument("workload: unknown workload '" + name + "' (choose " + names + ")");
}

std::vector<std::string> workload_names() {
  std::vector<std::string> out;
  for (const Entry& e : kWorkloads) out.emplace_back(e.name);
  return out;
}

}  // namespace islands
