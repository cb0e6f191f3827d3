#pragma once
#include <cstdint>
#include <vector>

#include "islands/perf/perf_event_spec.hpp"

namespace islands {

//! What a run measures about itself besides throughput: hardware/software counters around the
//! measured window, and the component time breakdown. Off by default (nothing to pay).
struct ProfileConfig {
  std::vector<PerfEventSpec> events;   //!< counters to open (resolved by islands.pmu)
  std::uint32_t breakdown_every = 0;   //!< time every Nth transaction by component; 0 = off

  //! Throws std::invalid_argument naming the field and why.
  void validate() const;
};

}  // namespace islands
