#pragma once
#include "islands/exec/run_config.hpp"
#include "islands/exec/run_stats.hpp"

namespace islands {

//! Builds one instance, loads it with its workers, runs warm-up and the measured window, and
//! returns the statistics. Throws std::invalid_argument for a bad config, before any thread
//! starts; throws std::runtime_error if a worker fails (all threads are joined first).
RunStats run_engine(const RunConfig& config);

//! Compiler, flags and build type of this build.
struct BuildInfo {
  const char* compiler;
  const char* flags;
  const char* build_type;
};
BuildInfo build_info();

}  // namespace islands
