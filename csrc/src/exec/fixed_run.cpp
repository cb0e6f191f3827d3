#include "islands/exec/fixed_run.hpp"

#include <stdexcept>

#include "islands/cc/concurrency_control.hpp"
#include "islands/common/random.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/workload/workload_dispatch.hpp"

namespace islands {
namespace {

template <class Workload, class CC>
std::uint64_t run_count(Workload& workload, const CC& cc, const RunConfig& config, std::uint64_t n) {
  TxnContext ctx(workload.max_columns());
  typename Workload::Txn txn;
  Random rng(config.driver.seed * 0x9e3779b97f4a7c15ULL);
  WorkerStats stats;
  std::uint64_t aborts = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    workload.generate(txn, rng, 0);
    ctx.begin(i + 1);
    while (!workload.execute(txn, ctx, cc, stats).committed) ++aborts;
  }
  return aborts + (stats.checksum & 0);  // the checksum keeps the reads alive
}

template <class Index>
std::uint64_t fixed(const RunConfig& config, std::uint64_t n) {
  return with_workload<Index>(config, [&](auto tag) -> std::uint64_t {
    using Workload = typename decltype(tag)::type;
    const std::size_t sites = config.driver.cpus.size();
    Workload workload = make_workload<Workload>(config, sites);
    for (std::size_t s = 0; s < sites; ++s) workload.load_site(s);
    workload.finish_load(config.engine.cc == CcKind::none);
    if (config.engine.cc == CcKind::none) return run_count(workload, NoLocking{}, config, n);
    return run_count(workload, TwoPhaseLocking{config.engine.lock_policy}, config, n);
  });
}

}  // namespace

std::uint64_t run_fixed_transactions(const RunConfig& config, std::uint64_t transactions) {
  config.validate();
  if (config.log.enabled()) {
    throw std::invalid_argument("log.mode: the fixed-transaction runner has no log; use log.mode off");
  }
  if (config.engine.index == IndexKind::hash) return fixed<HashIndex>(config, transactions);
  return fixed<BTreeIndex>(config, transactions);
}

}  // namespace islands
