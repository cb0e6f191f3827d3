#include "islands/exec/workload_registry.hpp"

#include "islands/common/config_error.hpp"

namespace islands {

namespace {
WorkloadEntry with_settings_class(WorkloadEntry entry, const char* settings_class) {
  entry.settings_class = settings_class;
  return entry;
}
}  // namespace

const std::vector<WorkloadEntry>& workloads() {
#define ISLANDS_WORKLOAD_ENTRY(name, Config) with_settings_class(workload_entry_##name(), #Config),
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
