// Whole PLP runs on per-unit, latch-free index roots (engine.plp_index = per_unit): micro and
// TATP with 2 workers while engine.plp_reshuffle_s moves routing units (and so their roots)
// between the workers. Each run reports one root per unit and no latched root, and keeps its
// consistency. Under the TSan build (make test-tsan) this is the check that no latch-free root
// is touched by two threads without PLP's hand-over between them: such an access would be a
// reported data race. Also: every key's root is the routing unit `locate` gives the
// operations that touch it (micro's keys; TATP's subscriber, access, facility, forwarding and
// sub_nbr keys), on an instance whose sites do not start at 0 and whose sites do not split
// evenly into units.
#include <cstdint>
#include <string>

#include "check.hpp"
#include "islands/common/random.hpp"
#include "islands/exec/engine_run.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/workload/micro_workload.hpp"
#include "islands/exec/routing_unit.hpp"
#include "islands/workload/tatp_workload.hpp"

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

void keys_map_to_their_units() {
  EngineConfig engine;
  engine.execution = ExecutionKind::plp;
  MicroConfig micro;
  micro.rows_per_site = 997;
  constexpr std::size_t kSites = 2, kFirst = 3;
  MicroWorkload<HashIndex> m(micro, engine, kSites, kFirst, 8);
  CHECK(m.index().roots() == kSites * kUnitsPerSite);
  for (std::uint64_t k = kFirst * 997; k < (kFirst + kSites) * 997; ++k) {
    const std::uint64_t unit = m.locate(&k, 1, 0).second;
    CHECK(m.index().root_of(k) == unit - kFirst * kUnitsPerSite);
  }
  TatpConfig tatp;
  tatp.subscribers_per_site = 997;
  TatpWorkload<HashIndex> t(tatp, engine, kSites, kFirst, 8);
  const TatpWorkload<HashIndex>::Roots roots{ReciprocalDivider(997), kFirst * kUnitsPerSite};
  Random rng(5);
  TatpWorkload<HashIndex>::Txn txn;
  for (int i = 0; i < 20000; ++i) {
    t.generate(txn, rng, kFirst + rng.below(kSites));
    const std::uint64_t unit = t.locate(txn.words.data(), txn.words.size(), 0).second - kFirst * kUnitsPerSite;
    const bool by_nbr = txn.words[0] >= 4;  // UpdateLocation, Insert/DeleteCallForwarding: by sub_nbr
    const std::uint64_t s = by_nbr ? txn.words[1] ^ 0x5a5a5a5aULL : txn.words[1];
    CHECK(roots((std::uint64_t{2} << 56) | ((s ^ 0x5a5a5a5aULL) << 8)) == unit);  // sub_nbr
    for (std::uint64_t tag = 1; tag <= 5; ++tag) {
      if (tag != 2) CHECK(roots((tag << 56) | (s << 8) | 7) == unit);
    }
  }
}

}  // namespace

int main() {
  keys_map_to_their_units();
  runs_on_latch_free_roots("micro");
  runs_on_latch_free_roots("tatp");
  return test_summary("test_plp_index_roots");
}
