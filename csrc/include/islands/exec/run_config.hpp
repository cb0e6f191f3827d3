#pragma once
#include <cstdint>
#include <string>

#include "islands/settings/driver_config.hpp"
#include "islands/settings/engine_config.hpp"
#include "islands/log/log_config.hpp"
#include "islands/perf/profile_config.hpp"
#include "islands/settings/workload_list.hpp"

namespace islands {

//! Everything one run of one instance needs. Validated once, by validate(), before anything
//! starts.
struct RunConfig {
  std::string workload = "micro";  //!< workload name (see exec/workload_registry.hpp)
  //! One settings member per workload, named after it (workload_list.hpp).
#define ISLANDS_WORKLOAD_SETTINGS(name, Config) Config name;
  ISLANDS_WORKLOADS(ISLANDS_WORKLOAD_SETTINGS)
#undef ISLANDS_WORKLOAD_SETTINGS
  EngineConfig engine;             //!< index, CC, latching
  DriverConfig driver;             //!< workers, timing, seed
  ProfileConfig profile;           //!< counters and time breakdown (off by default)
  LogConfig log;                   //!< write-ahead log (deployment runs only)

  //! Throws std::invalid_argument with "field: why" for the first invalid field.
  void validate() const { validate_sites(driver.cpus.size()); }
  //! The same for an instance of a deployment of `total_sites` sites (workloads check that
  //! their scale fits the whole deployment).
  void validate_sites(std::uint64_t total_sites) const;
};

}  // namespace islands
