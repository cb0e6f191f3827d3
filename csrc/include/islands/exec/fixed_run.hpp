#pragma once
#include <cstdint>

#include "islands/exec/run_config.hpp"

namespace islands {

//! One instance's workload run in the calling thread for exactly `transactions` committed
//! transactions (no timing, no other threads): what a simulator such as cachegrind runs, so
//! that two runs differing only in the count give the cost of one transaction. Loads every
//! site of config.driver.cpus first; returns the aborted attempts (retried) along the way.
//! With `warmup`, that many transactions run first; the simulator marks
//! (perf/simulator_marks.hpp) start simulating after the load, zero the counts after the
//! warm-up and stop after the last transaction (the aborts returned are the counted ones).
std::uint64_t run_fixed_transactions(const RunConfig& config, std::uint64_t transactions,
                                     std::uint64_t warmup = 0);

}  // namespace islands
