#pragma once
// The per-action cost of ATraPos monitoring: a loop of small actions with and without
// recording them (benchmarks/atrapos_monitoring.py interleaves the modes).
#include <cstdint>
#include <string>

namespace islands::atrapos {

//! What a monitoring benchmark run records per action.
enum class MonitoringMode {
  kOff,     //!< nothing: the baseline loop
  kCounts,  //!< sub_of(key) + record_action with a constant cost (no clock read)
  //! as kCounts, with the action's cost measured by one CycleClock read per action: the
  //! ticks since the previous action ended (a worker running actions back to back stamps
  //! each one's end once)
  kTimed,
};

//! One run of the loop.
struct MonitoringBenchConfig {
  MonitoringMode mode = MonitoringMode::kOff;
  //! Actions (loop iterations) to time.
  std::uint64_t actions = 10'000'000;
  //! Keys of the partition; each action reads and writes one 8-byte row of a table this long.
  std::uint64_t rows = 1u << 16;
  //! Every `sync_every`-th action also records a synchronization point (0: none).
  std::uint32_t sync_every = 4;
  //! Seed of the key sequence (the same in every mode).
  std::uint64_t seed = 1;
};

//! What one run measured.
struct MonitoringBenchResult {
  double ns_per_action = 0;  //!< wall time of the loop / actions
  std::uint64_t checksum = 0;  //!< of the rows touched (the same in every mode: the work is real)
  std::uint64_t recorded = 0;  //!< actions the monitor counted (0 when off)
};

//! Parses "off", "counts" or "timed"; throws std::invalid_argument naming the mode otherwise.
MonitoringMode parse_monitoring_mode(const std::string& name);
//! Runs the loop on the calling thread. Throws std::invalid_argument for 0 actions or fewer
//! rows than sub-partitions.
MonitoringBenchResult run_monitoring_bench(const MonitoringBenchConfig& config);

}  // namespace islands::atrapos
