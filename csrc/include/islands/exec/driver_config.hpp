#pragma once
#include <cstdint>
#include <vector>

namespace islands {

//! The closed-loop in-process driver: one worker thread per CPU, each a client that runs
//! transactions back to back (retrying aborts) through a warm-up and a measured window.
struct DriverConfig {
  std::vector<int> cpus;       //!< one worker per entry, pinned there; one site per worker
  bool pin = true;             //!< false: leave placement to the OS scheduler
  double warmup_s = 1.0;       //!< seconds run before measuring
  double duration_s = 5.0;     //!< seconds measured
  std::uint64_t seed = 1;      //!< base seed; worker i uses seed + i
};

}  // namespace islands
