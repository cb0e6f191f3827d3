#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include <vector>

#include "islands/cc/cc_dispatch.hpp"
#include "islands/common/random.hpp"
#include "islands/exec/workload_entry.hpp"
#include "islands/exec/workload_interface.hpp"
#include "islands/exec/workload_registry.hpp"
#include "islands/index/index_dispatch.hpp"
#include "islands/instance/instance_impl.hpp"
#include "islands/perf/simulator_marks.hpp"
#include "islands/txn/txn_context.hpp"

namespace islands {

static_assert(EngineConfig{}.index == kOnlyIndex, "kOnlyIndex: the default engine.index");

//! Every engine variant (index × scheme) of workload template W whose settings are RunConfig
//! member `Settings`, beside what its entry knows (WorkloadEntryOf, exec/workload_entry.hpp).
//! Included only by the workload's own <name>_variants.cpp, so each translation unit compiles
//! one workload.
template <template <class> class W, auto Settings>
struct WorkloadVariants : WorkloadEntryOf<W, Settings> {
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
