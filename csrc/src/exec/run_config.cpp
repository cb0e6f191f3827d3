#include "islands/exec/run_config.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "islands/workload/workload_kind.hpp"

namespace islands {

void RunConfig::validate_sites(std::uint64_t total_sites) const {
  switch (parse_workload_kind(workload)) {
    case WorkloadKind::micro:
      micro.validate();
      break;
    case WorkloadKind::tpcb:
      tpcb.validate_fit(total_sites);
      break;
    case WorkloadKind::tpcc:
      tpcc.validate_fit(total_sites);
      if (!engine.latching && driver.cpus.size() > 1) {
        throw std::invalid_argument("latching: tpcc inserts index keys while it runs, so an instance of " +
                                    std::to_string(driver.cpus.size()) + " workers needs index latching");
      }
      break;
    case WorkloadKind::tatp:
      tatp.validate();
      if (!engine.latching && driver.cpus.size() > 1) {
        throw std::invalid_argument("latching: tatp inserts index keys while it runs, so an instance of " +
                                    std::to_string(driver.cpus.size()) + " workers needs index latching");
      }
      if (static_cast<double>(tatp.subscribers_per_site) * static_cast<double>(total_sites) >= 1.0e12) {
        throw std::invalid_argument("subscribers_per_site: the deployment would hold 10^12 subscribers or more");
      }
      break;
  }
  profile.validate();
  log.validate();
  if (log.enabled() && !workload_logs(parse_workload_kind(workload))) {
    // TATP and TPC-C delete rows and keep secondary and ordered indexes that redo does not rebuild yet.
    std::string names;
    for (const std::string& name : logged_workload_names()) names += (names.empty() ? "" : " and ") + name;
    throw std::invalid_argument("log.mode: " + workload + " does not log its writes yet (" + names +
                                " do); use log.mode off for " + workload);
  }
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
  const double rows = static_cast<double>(micro.rows_per_site) * static_cast<double>(total_sites);
  if (workload == "micro" && rows >= 9.0e18) throw std::invalid_argument("rows_per_site: the key range overflows 64 bits");
}

}  // namespace islands
