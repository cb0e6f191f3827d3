#pragma once
#include <cstdint>

#include "islands/exec/run_config.hpp"

namespace islands {

//! One instance's workload run in the calling thread for exactly `transactions` committed
//! transactions (no timing, no other threads): what a simulator such as cachegrind runs, so
//! that two runs differing only in the count give the cost of one transaction. Loads every
//! site of config.driver.cpus first; returns the aborted attempts (retried) along the way.
std::uint64_t run_fixed_transactions(const RunConfig& config, std::uint64_t transactions);

}  // namespace islands
