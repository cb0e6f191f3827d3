#include "islands/exec/run_stats.hpp"

namespace islands {

std::uint64_t RunStats::commits() const {
  std::uint64_t n = 0;
  for (const WorkerStats& w : workers) n += w.commits;
  return n;
}

std::uint64_t RunStats::aborts() const {
  std::uint64_t n = 0;
  for (const WorkerStats& w : workers) {
    for (std::uint64_t a : w.aborts) n += a;
  }
  return n;
}

LatencyHistogram RunStats::latency() const {
  LatencyHistogram merged;
  for (const WorkerStats& w : workers) merged.merge(w.latency);
  return merged;
}

std::int64_t figure_or_zero(const char* name, const CheckFigures& figures) {
  for (const auto& [figure, value] : figures) {
    if (figure == name) return value;
  }
  return 0;
}

}  // namespace islands
