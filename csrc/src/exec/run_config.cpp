#include "islands/exec/run_config.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace islands {

void RunConfig::validate() const {
  if (workload != "micro") {
    throw std::invalid_argument("workload: unknown workload '" + workload + "' (choose micro)");
  }
  micro.validate();
  log.validate();
  if (driver.cpus.empty()) throw std::invalid_argument("cpus: at least one CPU is needed");
  for (int cpu : driver.cpus) {
    if (cpu < 0) throw std::invalid_argument("cpus: CPU " + std::to_string(cpu) + " does not exist");
  }
  std::vector<int> sorted = driver.cpus;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw std::invalid_argument("cpus: a CPU is listed twice (one worker per CPU)");
  }
  if (engine.cc == CcKind::none && driver.cpus.size() != 1) {
    throw std::invalid_argument("cc: 'none' is a single-threaded instance but " +
                                std::to_string(driver.cpus.size()) +
                                " CPUs were given (use 2pl, or one CPU)");
  }
  if (!(driver.warmup_s >= 0.0 && std::isfinite(driver.warmup_s))) {
    throw std::invalid_argument("warmup: must be a finite number of seconds >= 0");
  }
  if (!(driver.duration_s > 0.0 && std::isfinite(driver.duration_s))) {
    throw std::invalid_argument("duration: must be a finite number of seconds > 0");
  }
  const double rows = static_cast<double>(micro.rows_per_site) * static_cast<double>(driver.cpus.size());
  if (rows >= 9.0e18) throw std::invalid_argument("rows_per_site: the key range overflows 64 bits");
}

}  // namespace islands
