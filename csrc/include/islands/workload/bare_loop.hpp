#pragma once
#include "islands/exec/run_config.hpp"

namespace islands {

//! The engine-overhead baseline: one thread, the same table, index and key choice, probing and
//! reading (or updating) the rows in a bare loop: no transactions, no locks, no statistics;
//! with engine.interleave drawing ahead and prefetching as the engine's workers do.
//! Returns transactions per second over `config.driver.duration_s`. Micro only: it drives
//! MicroWorkload directly, without the engine (so it lives with the workloads).
double run_bare_loop(const RunConfig& config);

}  // namespace islands
