#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "islands/cc/cc_dispatch.hpp"
#include "islands/common/config_error.hpp"
#include "islands/instance/instance_impl.hpp"
#include "islands/exec/workload_registry.hpp"
#include "islands/index/index_dispatch.hpp"
#include "islands/perf/simulator_marks.hpp"
#include "islands/exec/routing_unit.hpp"
#include "islands/exec/workload_change.hpp"
#include "islands/exec/workload_interface.hpp"

namespace islands {

//! A registry entry for workload template W whose settings are RunConfig member `Settings`:
//! checks W's interface and builds every engine variant (index × scheme) of it. Included only
//! by the workload's own .cpp, so each translation unit compiles one workload.
static_assert(EngineConfig{}.index == kOnlyIndex, "kOnlyIndex: the default engine.index");

template <template <class> class W, auto Settings>
struct WorkloadVariants {
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

  static std::unique_ptr<Instance::Impl> make_instance(const InstanceConfig& config) {
    return with_index(config.run.engine.index, [&](auto index) {
      using Workload = W<typename decltype(index)::type>;
      return with_cc(config.run.engine, [&](auto cc) -> std::unique_ptr<Instance::Impl> {
        return std::make_unique<InstanceImpl<Workload, decltype(cc)>>(config, config.run.*Settings, cc);
      });
    });
  }

  // One thread, every site of the config loaded, n transactions committed; user rollbacks
  // count as done (the specification's), aborts are retried and returned.
  static std::uint64_t run_fixed(const RunConfig& config, std::uint64_t n, std::uint64_t warmup) {
    return with_index(config.engine.index, [&](auto index) {
      using Workload = W<typename decltype(index)::type>;
      return with_cc(config.engine, [&](auto cc) -> std::uint64_t {
        const std::size_t sites = config.driver.cpus.size();
        Workload workload(config.*Settings, config.engine, sites, 0, sites);
        for (std::size_t s = 0; s < sites; ++s) workload.load_site(s);
        workload.finish_load(!decltype(cc)::kLocks);
        TxnContext ctx(workload.max_columns());
        typename Workload::Txn txn;
        Random rng(config.driver.seed * 0x9e3779b97f4a7c15ULL);
        std::uint64_t aborts = 0, checksum = 0;
        // A simulator started with its instrumentation off simulates from here: the warm-up
        // transactions fill its caches, the counts restart, the n transactions are counted.
        simulation_start();
        for (std::uint64_t i = 0; i < warmup + n; ++i) {
          if (i == warmup) {
            simulation_zero();
            aborts = 0;
          }
          workload.generate(txn, rng, 0);
          ctx.begin(i + 1);
          for (;;) {
            const TxnResult result = execute_whole(workload, txn, ctx, cc, checksum);
            if (result.committed || result.user_rollback) break;
            ++aborts;
          }
        }
        simulation_stop();
        asm volatile("" : : "r"(checksum) : "memory");  // keeps the reads alive
        return aborts;
      });
    });
  }

  static std::vector<TableLoad> load_size(const RunConfig& config) { return W<HashIndex>::load_size(config.*Settings); }

  static bool writes(const RunConfig& config) { return W<HashIndex>::writes(config.*Settings); }

  // Every site of the config loaded in one instance by the calling thread; its tables' rows.
  static std::vector<TableRows> loaded_rows(const RunConfig& config) {
    return with_index(config.engine.index, [&](auto index) {
      using Workload = W<typename decltype(index)::type>;
      const std::size_t sites = config.driver.cpus.size();
      Workload workload(config.*Settings, config.engine, sites, 0, sites);
      for (std::size_t s = 0; s < sites; ++s) workload.load_site(s);
      workload.finish_load(true);
      return workload.table_rows();
    });
  }

  //! The entry for the registry (workload_registry.hpp), in every build (<name>_workload.cpp):
  //! what is known of W without its engine variants, which attach() adds where they are compiled.
  static WorkloadEntry entry(const char* name) {
    WorkloadEntry e;
    e.name = name;
    e.size_setting = W<HashIndex>::size_setting();
    e.logs = W<HashIndex>::kLogs;
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

  //! Attaches W's engine variants (every index × scheme) to its entry: called by the
  //! registration unit CMake generates (workload_selection.cpp) through workload_variants_<name>(),
  //! defined in <name>_variants.cpp, which a build may leave out (CMake ISLANDS_WORKLOADS).
  static void attach(WorkloadEntry& e) {
    e.make_instance = &make_instance;
    e.run_fixed = &run_fixed;
    e.loaded_rows = &loaded_rows;
  }
};

}  // namespace islands
