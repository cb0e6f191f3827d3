#pragma once
#include <string>

#include "islands/exec/driver_config.hpp"
#include "islands/exec/engine_config.hpp"
#include "islands/log/log_config.hpp"
#include "islands/workload/micro_config.hpp"

namespace islands {

//! Everything one run of one instance needs. Validated once, by validate(), before anything
//! starts.
struct RunConfig {
  std::string workload = "micro";  //!< workload name; "micro" is the only one so far
  MicroConfig micro;               //!< microbenchmark parameters
  EngineConfig engine;             //!< index, CC, latching
  DriverConfig driver;             //!< workers, timing, seed
  LogConfig log;                   //!< write-ahead log (deployment runs only)

  //! Throws std::invalid_argument with "field: why" for the first invalid field.
  void validate() const;
};

}  // namespace islands
