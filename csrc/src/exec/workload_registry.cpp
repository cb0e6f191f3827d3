#include "islands/exec/workload_registry.hpp"

#include "islands/common/config_error.hpp"

namespace islands {

const std::vector<WorkloadEntry>& workloads() {
#define ISLANDS_WORKLOAD_ENTRY(name, Config) workload_entry_##name(),
  static const std::vector<WorkloadEntry> entries{ISLANDS_WORKLOADS(ISLANDS_WORKLOAD_ENTRY)};
#undef ISLANDS_WORKLOAD_ENTRY
  return entries;
}

const WorkloadEntry& find_workload(const std::string& name) {
  for (const WorkloadEntry& entry : workloads()) {
    if (entry.name == name) return entry;
  }
  std::string names;
  for (const WorkloadEntry& entry : workloads()) names += (names.empty() ? "" : ", ") + entry.name;
  throw ConfigError("workload", "unknown workload '" + name + "' (choose " + names + ")");
}

}  // namespace islands
