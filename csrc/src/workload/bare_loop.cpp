#include "islands/workload/bare_loop.hpp"

#include <chrono>
#include <cstdint>

#include "islands/common/config_error.hpp"
#include "islands/common/cpu_affinity.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/exec/txn_lookahead.hpp"
#include "islands/index/index_dispatch.hpp"
#include "islands/workload/micro_workload.hpp"

namespace islands {
namespace {

using Clock = std::chrono::steady_clock;

template <class Index>
double bare_loop(const RunConfig& config) {
  const std::size_t sites = config.driver.cpus.size();
  if (config.driver.pin) pin_current_thread(config.driver.cpus[0]);
  MicroWorkload<Index> workload(config.micro, config.engine, sites);
  for (std::size_t s = 0; s < sites; ++s) workload.load_site(s);
  workload.finish_load(true);
  using Txn = typename MicroWorkload<Index>::Txn;
  Txn txn;
  Random rng(config.driver.seed);
  // engine.interleave as the engine's workers have it: the same draws, prefetched ahead.
  TxnLookahead<MicroWorkload<Index>> ahead(workload, config.engine);
  const auto draw = [&](Txn& drawn) { workload.generate(drawn, rng, 0); };
  std::uint64_t checksum = 0, done = 0;
  const auto run = [&](double seconds) {
    const auto start = Clock::now();
    const auto until = start + std::chrono::duration<double>(seconds);
    std::uint64_t count = 0;
    do {
      for (int i = 0; i < 256; ++i) {
        ahead.next(txn, draw);
        checksum += workload.bare_access(txn);
      }
      count += 256;
    } while (Clock::now() < until);
    return static_cast<double>(count) / seconds_since(start);
  };
  run(config.driver.warmup_s > 0 ? config.driver.warmup_s : 0.0);
  const double rate = run(config.driver.duration_s);
  done = checksum;  // keep the reads alive
  asm volatile("" : : "r"(done) : "memory");
  return rate;
}

}  // namespace

double run_bare_loop(const RunConfig& config) {
  config.validate();
  if (config.workload != "micro") throw ConfigError("workload", "the bare-loop baseline exists for micro only");
  return with_index(config.engine.index, [&](auto index) { return bare_loop<typename decltype(index)::type>(config); });
}

}  // namespace islands
