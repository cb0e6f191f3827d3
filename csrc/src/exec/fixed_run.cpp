#include "islands/exec/fixed_run.hpp"

#include "islands/common/config_error.hpp"
#include "islands/exec/workload_registry.hpp"

namespace islands {

std::uint64_t run_fixed_transactions(const RunConfig& config, std::uint64_t transactions,
                                     std::uint64_t warmup) {
  config.validate();
  if (config.log.enabled()) throw ConfigError("log.mode", "the fixed-transaction runner has no log; use log.mode off");
  return runnable_workload(config.workload).run_fixed(config, transactions, warmup);
}

}  // namespace islands
