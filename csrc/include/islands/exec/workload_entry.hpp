#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "islands/common/config_error.hpp"
#include "islands/exec/load_size.hpp"
#include "islands/exec/routing_unit.hpp"
#include "islands/exec/run_config.hpp"
#include "islands/exec/workload_change.hpp"
#include "islands/exec/workload_interface.hpp"
#include "islands/exec/workload_registry.hpp"
#include "islands/index/btree_index.hpp"
#include "islands/index/hash_index.hpp"

namespace islands {

//! What is known of workload template W (whose settings are RunConfig member `Settings`)
//! without its engine variants: its interface checked, its settings' rules, its load, and its
//! registry entry (entry), which <name>_workload.cpp builds in every build. Needs nothing of
//! the engine's instance or worker loop, so an edit there does not rebuild the entries;
//! WorkloadVariants (instance/workload_variants.hpp) adds the variants.
template <template <class> class W, auto Settings>
struct WorkloadEntryOf {
  static_assert(assert_workload<W<HashIndex>>() && assert_workload<W<BTreeIndex>>());

  static void validate(const RunConfig& config, std::uint64_t total_sites) {
    validate_plp_units(config.engine);
    W<HashIndex>::validate_settings(config.*Settings, config, total_sites);
  }

  // engine.plp_units = per_table needs PLP and a workload that routes its tables apart;
  // engine.plp_placement other than naive needs per_table.
  static void validate_plp_units(const EngineConfig& engine) {
    if (engine.plp_units == PlpUnitsKind::per_table) {
      if (!HasRoutingTables<W<HashIndex>>::value) {
        throw ConfigError("engine.plp_units",
                          "per_table: this workload routes all its tables by one key range (per_table is TATP's)");
      }
      if (engine.execution != ExecutionKind::plp) {
        throw ConfigError("engine.plp_units", std::string("per_table routes PLP's units; engine.execution is ") +
                                                  std::string(enum_name(engine.execution)));
      }
    }
    if (engine.plp_placement != PlpPlacementKind::naive && engine.plp_units != PlpUnitsKind::per_table) {
      throw ConfigError("engine.plp_placement", std::string(enum_name(engine.plp_placement)) +
                                                    " places tables apart: it needs engine.plp_units = per_table");
    }
  }

  static std::vector<TableLoad> load_size(const RunConfig& config) { return W<HashIndex>::load_size(config.*Settings); }

  static bool writes(const RunConfig& config) { return W<HashIndex>::writes(config.*Settings); }

  //! The entry for the registry (workload_registry.hpp), in every build (<name>_workload.cpp):
  //! what is known of W without its engine variants, which attach() adds where they are compiled.
  static WorkloadEntry entry(const char* name) {
    WorkloadEntry e;
    e.name = name;
    e.size_setting = W<HashIndex>::size_setting();
    e.logs = W<HashIndex>::kLogs;
    e.replays_commands = ReplaysCommands<W<HashIndex>>::value;
    e.transactions = W<HashIndex>::transaction_names();
    e.figures_at_start = W<HashIndex>::figures_at_start();
    e.conditions = W<HashIndex>::conditions();
    e.verify = &W<HashIndex>::verify;
    e.load_size = &load_size;
    e.writes = &writes;
    e.changes = CanChange<W<HashIndex>>::value;
    e.routes_tables = HasRoutingTables<W<HashIndex>>::value;
    e.validate = &validate;
    return e;
  }

};

}  // namespace islands
