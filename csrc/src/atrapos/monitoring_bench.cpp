#include "islands/atrapos/monitoring_bench.hpp"

#include <chrono>
#include <stdexcept>
#include <vector>

#include "islands/atrapos/partition_monitor.hpp"
#include "islands/common/cycle_clock.hpp"

namespace islands::atrapos {

MonitoringMode parse_monitoring_mode(const std::string& name) {
  if (name == "off") return MonitoringMode::kOff;
  if (name == "counts") return MonitoringMode::kCounts;
  if (name == "timed") return MonitoringMode::kTimed;
  throw std::invalid_argument("mode: '" + name + "' is not one of off, counts, timed");
}

namespace {

// The action: read and update one row chosen by an xorshift key sequence.
struct Loop {
  std::vector<std::uint64_t> rows;
  std::uint64_t state;
  std::uint64_t mask;

  std::uint64_t next_key() noexcept {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state & mask;
  }
  void act(std::uint64_t key) noexcept { rows[key] = rows[key] * 3 + key; }
};

template <MonitoringMode Mode>
MonitoringBenchResult run(const MonitoringBenchConfig& c) {
  std::uint64_t rows = 1;
  while (rows < c.rows) rows <<= 1;
  Loop loop{std::vector<std::uint64_t>(rows, 1), c.seed | 1, rows - 1};
  PartitionMonitor monitor(0, rows, 2);
  const auto start = std::chrono::steady_clock::now();
  std::uint32_t until_sync = c.sync_every;
  std::uint64_t stamp = Mode == MonitoringMode::kTimed ? CycleClock::now() : 0;
  for (std::uint64_t i = 0; i < c.actions; ++i) {
    const std::uint64_t key = loop.next_key();
    if constexpr (Mode == MonitoringMode::kOff) {
      loop.act(key);
    } else {
      const unsigned sub = monitor.sub_of(key);
      std::uint64_t cost = 1;
      if constexpr (Mode == MonitoringMode::kTimed) {
        loop.act(key);
        const std::uint64_t now = CycleClock::now();
        cost = now - stamp;
        stamp = now;
      } else {
        loop.act(key);
      }
      monitor.record_action(sub, cost);
      if (c.sync_every != 0 && --until_sync == 0) {
        until_sync = c.sync_every;
        monitor.record_sync(sub, 1, static_cast<unsigned>(key % kSubPartitions), 16);
      }
    }
  }
  const double seconds = seconds_since(start);
  MonitoringBenchResult r;
  r.ns_per_action = seconds * 1e9 / static_cast<double>(c.actions);
  for (std::uint64_t v : loop.rows) r.checksum ^= v;
  for (unsigned s = 0; s < kSubPartitions; ++s) r.recorded += monitor.actions(s);
  return r;
}

}  // namespace

MonitoringBenchResult run_monitoring_bench(const MonitoringBenchConfig& config) {
  if (config.actions == 0) throw std::invalid_argument("actions: must be at least 1");
  if (config.rows < kSubPartitions) throw std::invalid_argument("rows: fewer than the 10 sub-partitions");
  switch (config.mode) {
    case MonitoringMode::kOff:
      return run<MonitoringMode::kOff>(config);
    case MonitoringMode::kCounts:
      return run<MonitoringMode::kCounts>(config);
    case MonitoringMode::kTimed:
      return run<MonitoringMode::kTimed>(config);
  }
  throw std::invalid_argument("mode: unknown");
}

}  // namespace islands::atrapos
