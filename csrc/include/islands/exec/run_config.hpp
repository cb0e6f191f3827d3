#pragma once
#include <cstdint>
#include <string>

#include "islands/exec/driver_config.hpp"
#include "islands/exec/engine_config.hpp"
#include "islands/log/log_config.hpp"
#include "islands/perf/profile_config.hpp"
#include "islands/workload/micro_config.hpp"
#include "islands/workload/tatp_config.hpp"
#include "islands/workload/tpcb_config.hpp"
#include "islands/workload/tpcc_config.hpp"

namespace islands {

//! Everything one run of one instance needs. Validated once, by validate(), before anything
//! starts.
struct RunConfig {
  std::string workload = "micro";  //!< workload name (see workload_registry.hpp)
  MicroConfig micro;               //!< microbenchmark parameters
  TpcbConfig tpcb;                 //!< TPC-B parameters
  TatpConfig tatp;                 //!< TATP parameters
  TpccConfig tpcc;                 //!< TPC-C parameters
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
