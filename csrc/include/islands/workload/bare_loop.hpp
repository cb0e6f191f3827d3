#pragma once
#include "islands/exec/run_config.hpp"

namespace islands {

//! The engine-overhead baseline: one thread, the same table, index and key choice, probing and
//! reading (or updating) the rows in a bare loop: no transactions, no locks, no statistics;
//! with engine.interleave drawing ahead and prefetching as the engine's workers do.
//! Micro only: it drives MicroWorkload directly, without the engine (so it lives with the
//! workloads).
struct BareLoopResult {
  double throughput_tps = 0;  //!< transactions per second over driver.duration_s
  double per_cpu_s = 0;       //!< transactions per CPU-second of the loop's thread (what a shared machine disturbs least)
};
//! Runs the bare loop of `config` (warm-up, then driver.duration_s measured).
BareLoopResult run_bare_loop(const RunConfig& config);

}  // namespace islands
