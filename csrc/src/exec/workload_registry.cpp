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
  static const std::vector<WorkloadEntry> entries = [] {
    std::vector<WorkloadEntry> all{ISLANDS_WORKLOADS(ISLANDS_WORKLOAD_ENTRY)};
    for (WorkloadEntry& entry : all) attach_compiled_variants(entry);
    return all;
  }();
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

void require_compiled(const WorkloadEntry& entry) {
  if (entry.make_instance && entry.run_fixed) return;
  throw ConfigError("workload", entry.name + " is not compiled into this build (its engine variants were left out: "
                                "ISLANDS_WORKLOADS=" + compiled_workloads() + "); run `make install` to build every workload");
}

const WorkloadEntry& runnable_workload(const std::string& name) {
  const WorkloadEntry& entry = find_workload(name);
  require_compiled(entry);
  return entry;
}

}  // namespace islands
