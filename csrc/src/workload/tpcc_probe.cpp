#include "islands/workload/tpcc_probe.hpp"

#include "islands/cc/concurrency_control.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/workload/tpcc_workload.hpp"

namespace islands {

TpccProbe tpcc_probe(const RunConfig& config, std::uint64_t transactions, const std::string& corruption) {
  const std::size_t sites = config.driver.cpus.size();
  TpccWorkload<HashIndex> workload(config.tpcc, config.engine, sites, 0, sites);
  for (std::size_t s = 0; s < sites; ++s) workload.load_site(s);
  workload.finish_load(true);
  TxnContext ctx(workload.max_columns());
  TpccWorkload<HashIndex>::Txn txn;
  Random rng(config.driver.seed * 0x9e3779b97f4a7c15ULL);
  const NoLocking cc;
  TpccProbe probe;
  std::uint64_t checksum = 0;
  for (std::uint64_t i = 0; i < transactions; ++i) {
    workload.generate(txn, rng, i % sites);
    ctx.begin(i + 1);
    if (execute_whole(workload, txn, ctx, cc, checksum).committed) ++probe.committed;
  }
  if (!corruption.empty()) probe.corrupted = workload.corrupt_for_test(corruption);
  for (const auto& [name, value] : workload.check_figures()) probe.figures[name] = value;
  probe.failures = TpccWorkload<HashIndex>::verify(probe.figures);
  return probe;
}

}  // namespace islands
