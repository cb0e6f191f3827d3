#include "islands/exec/engine_run.hpp"

#include <chrono>
#include <cstdint>

#include "islands/exec/instance.hpp"

#ifndef ISLANDS_COMPILER
#define ISLANDS_COMPILER "unknown"
#define ISLANDS_CXX_FLAGS "unknown"
#define ISLANDS_BUILD_TYPE "unknown"
#endif

namespace islands {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

RunStats run_engine(const RunConfig& config, PlpControl* control) {
  // A deployment of one instance: the same instance, workers and worker loop as a process of
  // a multi-instance deployment, with no transport (every transaction is local).
  config.validate();
  InstanceConfig instance;
  instance.run = config;
  instance.instance_sites = {static_cast<std::uint32_t>(config.driver.cpus.size())};
  Instance engine(instance, control);
  engine.load();
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               Clock::now().time_since_epoch()).count();
  RunStats stats = engine.run(now, config.driver.warmup_s, config.driver.duration_s);
  // As a deployment's launcher does once every instance is done: a clean run's log is
  // checkpointed (a snapshot, and the log started afresh).
  if (config.log.enabled() && config.log.checkpoint) engine.checkpoint();
  return stats;
}

BuildInfo build_info() { return {ISLANDS_COMPILER, ISLANDS_CXX_FLAGS, ISLANDS_BUILD_TYPE}; }

}  // namespace islands
