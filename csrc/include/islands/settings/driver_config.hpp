#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "islands/common/setting_field.hpp"

namespace islands {

//! The fields of DriverConfig: F(type, name, default, min, max, help) (see setting_field.hpp).
#define ISLANDS_DRIVER_FIELDS(F)                                                                       \
  F(std::vector<int>, cpus, {}, kUnbounded, kUnbounded, "one worker per entry, pinned there; one site per worker") \
  F(bool, pin, true, kUnbounded, kUnbounded, "false: leave placement to the OS scheduler")            \
  F(double, warmup_s, 1.0, 0, 86400, "seconds run before measuring (at most a day)")                     \
  F(double, duration_s, 5.0, 0.001, 86400, "seconds measured (at most a day)")                        \
  F(std::uint64_t, seed, 1, kUnbounded, kUnbounded, "base random seed; worker i uses seed + i")         \
  F(double, timeline_interval_s, 0.1, 0.001, 3600, "the throughput timeline counts commits per interval of this many seconds") \
  F(std::uint64_t, min_free_memory_mib, 512, 0, 1073741824,                                  \
    "the run stops early, keeping what it measured, when the machine's available memory falls below this many MiB (0: never)")

//! The closed-loop in-process driver: one worker thread per CPU, each a client that runs
//! transactions back to back (retrying aborts) through a warm-up and a measured window.
struct DriverConfig {
  ISLANDS_SETTINGS(DriverConfig, "driver", "Closed-loop driver: workers, timing, seed", ISLANDS_DRIVER_FIELDS)

  //! Throws ConfigError naming the field and why: the ranges, and one distinct CPU >= 0 per
  //! worker.
  void validate() const {
    check_fields(*this);
    if (cpus.empty()) throw ConfigError("driver.cpus", "at least one CPU is needed");
    for (int cpu : cpus) {
      if (cpu < 0) throw ConfigError("driver.cpus", "CPU " + std::to_string(cpu) + " does not exist");
    }
    std::vector<int> sorted = cpus;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      throw ConfigError("driver.cpus", "a CPU is listed twice (one worker per CPU)");
    }
  }
};

}  // namespace islands
