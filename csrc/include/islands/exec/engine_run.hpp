#pragma once
#include "islands/exec/run_config.hpp"
#include "islands/exec/run_stats.hpp"

namespace islands {

class PlpControl;

//! Builds one instance, loads it with its workers, runs warm-up and the measured window, and
//! returns the statistics. Throws std::invalid_argument for a bad config, before any thread
//! starts; throws std::runtime_error if a worker fails (all threads are joined first). A PLP
//! run attaches to `control` while its workers draw (null: nothing controls it).
RunStats run_engine(const RunConfig& config, PlpControl* control = nullptr);

//! Compiler, flags and build type of this build.
struct BuildInfo {
  const char* compiler;
  const char* flags;
  const char* build_type;
};
BuildInfo build_info();

}  // namespace islands
