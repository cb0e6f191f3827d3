#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "islands/exec/instance.hpp"
#include "islands/exec/instance_config.hpp"
#include "islands/exec/load_size.hpp"
#include "islands/exec/run_config.hpp"
#include "islands/settings/workload_list.hpp"

namespace islands {

//! What the engine knows of one workload: its name and transactions, and its engine variants
//! (every index × concurrency-control scheme), built in the workload's own translation unit.
struct WorkloadEntry {
  std::string name;                       //!< run-time name = RunConfig member = Python section
  std::string settings_class;             //!< its settings struct's name (= the Python binding's class)
  std::string size_setting;               //!< the setting that sizes its load, as section.field
  bool logs = false;                      //!< its writes reach the write-ahead log
  bool replays_commands = false;          //!< it can log commands (log.content = command; ReplaysCommands)
  std::vector<std::string> transactions;  //!< transaction type names, by type number
  //! Figures its conditions need as they stood at the run's start (as NAME_at_start).
  std::vector<std::string> figures_at_start;
  std::vector<std::string> conditions;    //!< the names of its consistency conditions
  bool changes = false;                   //!< its draw can change while it runs (exec/workload_change.hpp)
  //! It can route its tables apart (engine.plp_units = per_table), in the order of load_size's tables.
  bool routes_tables = false;
  //! The consistency conditions that figures summed over a deployment violate (empty: none).
  std::vector<std::string> (*verify)(const CheckMap& checks) = nullptr;
  //! Its tables as the config's settings size them (rows a site and an instance, row bytes).
  std::vector<TableLoad> (*load_size)(const RunConfig& config) = nullptr;
  //! Whether its transactions can write under the config's settings (else it never logs).
  bool (*writes)(const RunConfig& config) = nullptr;
  //! Loads every site of config (driver.cpus) in one instance in the calling thread and returns
  //! each table's rows: what a load holds, to compare with load_size (tests).
  std::vector<TableRows> (*loaded_rows)(const RunConfig& config) = nullptr;
  //! Throws ConfigError when its settings cannot run on a deployment of total_sites sites.
  void (*validate)(const RunConfig& config, std::uint64_t total_sites) = nullptr;
  //! The instance that runs it as config says (index, scheme).
  std::unique_ptr<Instance::Impl> (*make_instance)(const InstanceConfig& config) = nullptr;
  //! Exactly warmup + n committed transactions in the calling thread (see run_fixed_transactions).
  std::uint64_t (*run_fixed)(const RunConfig& config, std::uint64_t n, std::uint64_t warmup) = nullptr;
};

//! Every workload, in the order of ISLANDS_WORKLOADS.
const std::vector<WorkloadEntry>& workloads();
//! The workload called name; throws ConfigError("workload", ...) listing the names.
const WorkloadEntry& find_workload(const std::string& name);

#define ISLANDS_DECLARE_WORKLOAD_ENTRY(name, Config) WorkloadEntry workload_entry_##name();
ISLANDS_WORKLOADS(ISLANDS_DECLARE_WORKLOAD_ENTRY)
#undef ISLANDS_DECLARE_WORKLOAD_ENTRY

// A workload's engine variants (make_instance, run_fixed, loaded_rows) are compiled apart, in
// its <name>_variants.cpp, which a build may leave out (CMake ISLANDS_WORKLOADS: `make run`'s
// first build compiles micro's only); every other field of its entry is in every build.

//! Fills in the engine variants of entry's workload (<name>_variants.cpp).
#define ISLANDS_DECLARE_WORKLOAD_VARIANTS(name, Config) void workload_variants_##name(WorkloadEntry& entry);
ISLANDS_WORKLOADS(ISLANDS_DECLARE_WORKLOAD_VARIANTS)
#undef ISLANDS_DECLARE_WORKLOAD_VARIANTS
//! Attaches its engine variants to entry when this build compiled them (CMake's generated
//! registration unit, workload_selection.cpp); leaves them null when it did not.
void attach_compiled_variants(WorkloadEntry& entry);
//! The workloads whose engine variants this build compiled: "all", or their names, comma-separated.
const char* compiled_workloads();
//! Throws ConfigError("workload", ...), one line naming the workload and `make install`, when
//! this build did not compile entry's engine variants.
void require_compiled(const WorkloadEntry& entry);
//! The workload called name, with its engine variants: find_workload, then require_compiled.
const WorkloadEntry& runnable_workload(const std::string& name);

}  // namespace islands
