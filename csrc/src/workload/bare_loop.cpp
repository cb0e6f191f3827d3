#include "islands/workload/bare_loop.hpp"

#include <time.h>

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

// CPU time of the calling thread, in seconds.
double thread_cpu_s() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

template <class Index>
BareLoopResult bare_loop(const RunConfig& config) {
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
  // Each transaction's own prefetch as well, as the engine's access has it: on this machine
  // dropping it where the pipeline prefetched ahead made the loop slower, not faster.
  const bool in_txn_prefetch = config.engine.prefetch;
  std::uint64_t checksum = 0, done = 0;
  const auto run = [&](double seconds) {
    const auto start = Clock::now();
    const double cpu0 = thread_cpu_s();
    const auto until = start + std::chrono::duration<double>(seconds);
    std::uint64_t count = 0;
    do {
      for (int i = 0; i < 256; ++i) {
        ahead.next(txn, draw);
        checksum += workload.bare_access(txn, in_txn_prefetch);
      }
      count += 256;
    } while (Clock::now() < until);
    const double wall = seconds_since(start), cpu = thread_cpu_s() - cpu0;
    return BareLoopResult{static_cast<double>(count) / wall, cpu > 0 ? static_cast<double>(count) / cpu : 0.0};
  };
  run(config.driver.warmup_s > 0 ? config.driver.warmup_s : 0.0);
  const BareLoopResult rate = run(config.driver.duration_s);
  done = checksum;  // keep the reads alive
  asm volatile("" : : "r"(done) : "memory");
  return rate;
}

}  // namespace

BareLoopResult run_bare_loop(const RunConfig& config) {
  config.validate();
  if (config.workload != "micro") throw ConfigError("workload", "the bare-loop baseline exists for micro only");
  return with_index(config.engine.index, [&](auto index) { return bare_loop<typename decltype(index)::type>(config); });
}

}  // namespace islands
