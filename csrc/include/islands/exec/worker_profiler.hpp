#pragma once
#include <cstdint>

#include "islands/exec/run_stats.hpp"
#include "islands/perf/component_clock.hpp"
#include "islands/perf/perf_counters.hpp"
#include "islands/perf/profile_config.hpp"

namespace islands {

//! A worker's measurement around its measured window: its per-thread counters (opened by the
//! constructor, so construct it in the worker thread) and its component clock, which times
//! every Nth transaction.
class WorkerProfiler {
 public:
  explicit WorkerProfiler(const ProfileConfig& config)
      : counters_(config.events, CounterScope::thread), every_(config.breakdown_every) {}

  //! At the start of the window: counters on, breakdown armed.
  void start_window() {
    counters_.enable();
    window_start_ = CycleClock::now();
    measuring_ = true;
    timed_last_ = false;
    countdown_ = 0;
  }
  //! Called at the top of each transaction (loop iteration): the clock to hand to the
  //! transaction, or nullptr when this one is not timed.
  ComponentClock* begin_span() {
    if (!measuring_ || every_ == 0 || countdown_-- != 0) return nullptr;
    countdown_ = every_ - 1;
    if (every_ == 1 && timed_last_) {
      clock_.resume();
    } else {
      clock_.start(Component::management);
    }
    timed_last_ = true;
    open_ = true;
    return &clock_;
  }
  //! Called at the end of a timed transaction.
  void end_span(ComponentClock* clock) {
    if (clock) clock->stop();
    timed_last_ = clock != nullptr;
    open_ = false;
  }
  //! At the end of the window: counters off and read, breakdown stored in `stats`.
  void stop_window(WorkerStats& stats) {
    if (!measuring_) return;
    measuring_ = false;
    // The end of the window: a transaction it cut short (a retry or back-off when the window
    // closed) is charged to where it was; with every transaction timed, so is the last step.
    if (open_) {
      clock_.charge();
    } else if (every_ == 1 && timed_last_) {
      clock_.resume();
      clock_.charge();
    }
    open_ = false;
    stats.window_ticks = CycleClock::now() - window_start_;
    counters_.disable();
    stats.counters = counters_.read();
    stats.component_ticks = clock_.ticks();
    stats.timed_txns = clock_.spans();
  }

 private:
  PerfCounters counters_;
  ComponentClock clock_;
  std::uint32_t every_;
  std::uint32_t countdown_ = 0;
  std::uint64_t window_start_ = 0;
  bool timed_last_ = false;  // the previous transaction was timed to its end
  bool open_ = false;        // a timed transaction has begun and not ended
  bool measuring_ = false;
};

}  // namespace islands
