#include "islands/exec/run_config.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "islands/common/config_error.hpp"
#include "islands/exec/workload_registry.hpp"

namespace islands {

void RunConfig::validate_sites(std::uint64_t total_sites) const {
  const WorkloadEntry& entry = find_workload(workload);
  entry.validate(*this, total_sites);
  profile.validate();
  log.validate();
  if (log.enabled() && !entry.logs) {
    // TATP and TPC-C delete rows and keep secondary and ordered indexes that redo does not rebuild yet.
    std::string names;
    for (const WorkloadEntry& w : workloads()) {
      if (w.logs) names += (names.empty() ? "" : " and ") + w.name;
    }
    throw ConfigError("log.mode", workload + " does not log its writes yet (" + names + " do); use log.mode off for " +
                                      workload);
  }
  if (driver.cpus.empty()) throw ConfigError("cpus", "at least one CPU is needed");
  for (int cpu : driver.cpus) {
    if (cpu < 0) throw ConfigError("cpus", "CPU " + std::to_string(cpu) + " does not exist");
  }
  std::vector<int> sorted = driver.cpus;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw ConfigError("cpus", "a CPU is listed twice (one worker per CPU)");
  }
  if (engine.cc == CcKind::none && driver.cpus.size() != 1) {
    throw ConfigError("cc", "'none' is a single-threaded instance but " +
                                std::to_string(driver.cpus.size()) +
                                " CPUs were given (use 2pl, or one CPU)");
  }
  if (!(driver.warmup_s >= 0.0 && std::isfinite(driver.warmup_s))) {
    throw ConfigError("warmup", "must be a finite number of seconds >= 0");
  }
  if (!(driver.duration_s > 0.0 && std::isfinite(driver.duration_s))) {
    throw ConfigError("duration", "must be a finite number of seconds > 0");
  }
}

}  // namespace islands
