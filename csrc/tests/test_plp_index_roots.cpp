// Whole PLP runs on per-unit, latch-free index roots (engine.plp_index = per_unit): micro and
// TATP with 2 workers while engine.plp_reshuffle_s moves routing units (and so their roots)
// between the workers. Each run reports one root per unit and no latched root, and keeps its
// consistency. Under the TSan build (make test-tsan) this is the check that no latch-free root
// is touched by two threads without PLP's hand-over between them: such an access would be a
// reported data race.
#include <cstdint>
#include <string>

#include "check.hpp"
#include "islands/exec/engine_run.hpp"
#include "islands/workload/routing_unit.hpp"

using namespace islands;

namespace {

RunConfig plp_config(const std::string& workload) {
  RunConfig config;
  config.workload = workload;
  config.engine.execution = ExecutionKind::plp;
  config.engine.plp_index = PlpIndexKind::per_unit;
  config.engine.plp_reshuffle_s = 0.002;
  config.driver.cpus = {0, 1};
  config.driver.pin = false;  // any machine, any load
  config.driver.warmup_s = 0.02;
  config.driver.duration_s = 0.2;
  config.micro.rows_per_site = 200;
  config.micro.rows_per_txn = 4;
  config.micro.update = true;
  config.micro.multisite = 0.5;
  config.tatp.subscribers_per_site = 200;
  return config;
}

std::int64_t figure_of(const CheckFigures& figures, const std::string& name) {
  for (const auto& [n, v] : figures) {
    if (n == name) return v;
  }
  return -1;
}

void runs_on_latch_free_roots(const std::string& workload) {
  const RunStats stats = run_engine(plp_config(workload));
  CHECK(stats.commits() > 0);
  CHECK(stats.repartitioning.repartitions > 0);  // roots changed owner while it ran
  CHECK(figure_of(stats.checks_after, "index_roots") == 2 * std::int64_t{kUnitsPerSite});
  CHECK(figure_of(stats.checks_after, "index_latched_roots") == 0);
  if (workload == "micro") {  // every committed update added 1 to each row it updated
    std::uint64_t rows = 0;
    for (const WorkerStats& w : stats.workers) rows += w.row_updates_all_phases;
    CHECK(stats.payload_sum_after - stats.payload_sum_before == static_cast<std::int64_t>(rows));
  }
}

}  // namespace

int main() {
  runs_on_latch_free_roots("micro");
  runs_on_latch_free_roots("tatp");
  return test_summary("test_plp_index_roots");
}
