#include "islands/exec/engine_run.hpp"

#include <chrono>
#include <cstdint>

#include "islands/common/config_error.hpp"
#include "islands/common/cpu_affinity.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/exec/instance.hpp"
#include "islands/index/index_dispatch.hpp"
#include "islands/workload/micro_workload.hpp"

#ifndef ISLANDS_COMPILER
#define ISLANDS_COMPILER "unknown"
#define ISLANDS_CXX_FLAGS "unknown"
#define ISLANDS_BUILD_TYPE "unknown"
#endif

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
  typename MicroWorkload<Index>::Txn txn;
  Random rng(config.driver.seed);
  std::uint64_t checksum = 0, done = 0;
  const auto run = [&](double seconds) {
    const auto start = Clock::now();
    const auto until = start + std::chrono::duration<double>(seconds);
    std::uint64_t count = 0;
    do {
      for (int i = 0; i < 256; ++i) {
        workload.generate(txn, rng, 0);
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

RunStats run_engine(const RunConfig& config) {
  // A deployment of one instance: the same instance, workers and worker loop as a process of
  // a multi-instance deployment, with no transport (every transaction is local).
  config.validate();
  InstanceConfig instance;
  instance.run = config;
  instance.instance_sites = {static_cast<std::uint32_t>(config.driver.cpus.size())};
  Instance engine(instance);
  engine.load();
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               Clock::now().time_since_epoch()).count();
  return engine.run(now, config.driver.warmup_s, config.driver.duration_s);
}

double run_bare_loop(const RunConfig& config) {
  config.validate();
  if (config.workload != "micro") throw ConfigError("workload", "the bare-loop baseline exists for micro only");
  return with_index(config.engine.index, [&](auto index) { return bare_loop<typename decltype(index)::type>(config); });
}

BuildInfo build_info() { return {ISLANDS_COMPILER, ISLANDS_CXX_FLAGS, ISLANDS_BUILD_TYPE}; }

}  // namespace islands
