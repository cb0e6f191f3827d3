#pragma once
#include <time.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "islands/common/backoff.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/exec/system_access.hpp"
#include "islands/exec/worker_profiler.hpp"

namespace islands {

//! An instance's run, phase by phase (Instance::phase_): workers draw nothing before kWarmup,
//! count from kMeasure and leave at kStop.
enum InstancePhase : int { kLoading, kWaitStart, kWarmup, kMeasure, kStop };

//! What a worker does after the phase gate at the top of its loop (WorkerWindow::gate).
enum class PhaseStep {
  stop,  //!< the run stopped or failed: leave the loop
  wait,  //!< not yet warming up: go round again
  work,  //!< draw and run a transaction (the system-state lock held shared)
};

//! A worker's measured window and its commit counting, kept by the one worker loop
//! (WorkerLoop, exec/worker_loop.hpp) for both its policies: where the
//! window opens and closes, what each acknowledged commit adds to the worker's statistics
//! (counts always; latency and timeline inside the window), and the thread's CPU time over it.
class WorkerWindow {
 public:
  //! The window of the worker whose statistics are `stats`.
  explicit WorkerWindow(WorkerStats& stats) : stats_(stats) {}

  //! At the start of the worker's run, in its thread: reads the cycle clock's rate.
  void open() { ns_per_tick_ = CycleClock::ns_per_tick(); }
  //! The cycle clock's rate (after open).
  double ns_per_tick() const { return ns_per_tick_; }
  //! Whether the measured window has started.
  bool measuring() const { return measuring_; }

  //! The measured window starts: the window's counters zeroed, `profiler`'s counters on, the
  //! thread's CPU time and the timeline (one interval per `timeline_interval_s`) from now.
  void start(WorkerProfiler& profiler, double timeline_interval_s) {
    measuring_ = true;
    stats_.reset_window();
    profiler.start_window();
    window_cpu_ns_ = thread_cpu_ns();
    timeline_ticks_ = static_cast<std::uint64_t>(timeline_interval_s * 1e9 / ns_per_tick_);
    timeline_edge_ = CycleClock::now() + timeline_ticks_;
    stats_.timeline.assign(1, 0);
  }

  //! The top of both worker loops: takes the system-state lock shared through `system`
  //! (calling `barred()` while a phase change bars it), reads the run's `phase` and whether
  //! it `failed`, opens a profiler span on `ctx`'s clock and serves peers (`serve()`), and
  //! starts the measured window when the measure phase has begun. The lock stays held only
  //! for PhaseStep::work.
  template <class Context, class Barred, class Serve>
  PhaseStep gate(SystemAccess& system, const std::atomic<int>& phase, const std::atomic<bool>& failed,
                 WorkerProfiler& profiler, Context& ctx, double timeline_interval_s, Barred barred, Serve serve) {
    system.hold(barred);
    const int now = phase.load(std::memory_order_relaxed);
    if (now >= kStop || failed.load(std::memory_order_relaxed)) {
      system.release();
      return PhaseStep::stop;
    }
    ctx.set_clock(profiler.begin_span());
    serve();
    if (now < kWarmup) {
      system.release();
      cpu_relax();
      return PhaseStep::wait;
    }
    if (now == kMeasure && !measuring_) start(profiler, timeline_interval_s);
    return PhaseStep::work;
  }

  //! Counts an acknowledged commit that started (first attempt, or its submission by a client)
  //! at `start` (cycle clock).
  //! Always inlined into the worker loops: an out-of-line copy is a COMDAT function whose
  //! line table addr2line may resolve to another header (the code-module profile then counted
  //! its samples as transport in a run without one).
  [[gnu::always_inline]] void count_commit(std::uint64_t start, std::uint64_t rows, std::size_t type, bool distributed) {
    ++stats_.commits;
    ++stats_.commits_by_type[type];
    ++stats_.commits_all_phases;
    if (distributed) ++stats_.multisite_commits;
    stats_.row_updates_all_phases += rows;
    if (measuring_) {
      const std::uint64_t now = CycleClock::now();
      const auto ns = now > start ? static_cast<std::uint64_t>(static_cast<double>(now - start) * ns_per_tick_) : 0;
      stats_.latency.record(ns);
      stats_.latency_by_type[type].record(ns);
      for (; now >= timeline_edge_; timeline_edge_ += timeline_ticks_) stats_.timeline.push_back(0);
      ++stats_.timeline.back();
    }
  }

  //! The worker stops drawing transactions: `profiler`'s readings and the window's CPU time
  //! into the statistics (what it acknowledges while it shuts down still counts).
  void stop(WorkerProfiler& profiler) {
    profiler.stop_window(stats_);
    if (measuring_) stats_.cpu_ns = thread_cpu_ns() - window_cpu_ns_;
  }

  //! After the shutdown: a run that stopped before its window measured nothing.
  void finish() {
    if (!measuring_) stats_.reset_window();
  }

 private:
  // CPU time of the calling thread.
  static std::uint64_t thread_cpu_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
  }

  WorkerStats& stats_;
  bool measuring_ = false;
  double ns_per_tick_ = 1;
  std::uint64_t window_cpu_ns_ = 0;   // this thread's CPU time when its measured window began
  std::uint64_t timeline_ticks_ = 1;  // driver.timeline_interval_s in cycle-clock ticks
  std::uint64_t timeline_edge_ = 0;   // where the timeline's current interval ends (cycle clock)
};

}  // namespace islands
