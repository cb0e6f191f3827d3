#pragma once
#include <cstdint>
#include <vector>

#include "islands/common/setting_field.hpp"
#include "islands/perf/perf_event_spec.hpp"

namespace islands {

//! The fields of ProfileConfig: F(type, name, default, min, max, help) (see setting_field.hpp).
#define ISLANDS_PROFILE_FIELDS(F)                                                                       \
  F(std::vector<PerfEventSpec>, events, {}, kUnbounded, kUnbounded, "counters to open (resolved by islands.measure.pmu)") \
  F(std::uint32_t, breakdown_every, 0, 0, 1000000,                                                      \
    "time every Nth transaction by component; 0 = off, 1 = every transaction")

//! What a run measures about itself besides throughput: hardware/software counters around the
//! measured window, and the component time breakdown. Off by default (nothing to pay).
struct ProfileConfig {
  ISLANDS_SETTINGS(ProfileConfig, "profile", "Counters and time breakdown around the measured window",
                   ISLANDS_PROFILE_FIELDS)

  //! Throws ConfigError naming the field and why.
  void validate() const;
};

}  // namespace islands
