#include "islands/exec/engine_run.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <thread>

#include "islands/cc/concurrency_control.hpp"
#include "islands/common/backoff.hpp"
#include "islands/common/cpu_affinity.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/perf/worker_profiler.hpp"
#include "islands/workload/workload_dispatch.hpp"

#ifndef ISLANDS_COMPILER
#define ISLANDS_COMPILER "unknown"
#define ISLANDS_CXX_FLAGS "unknown"
#define ISLANDS_BUILD_TYPE "unknown"
#endif

namespace islands {
namespace {

using Clock = std::chrono::steady_clock;

enum Phase : int { kLoading, kWarmup, kMeasure, kStop };

// Sleeps up to `seconds`, waking early when a worker failed.
void sleep_unless(double seconds, const std::atomic<bool>& failed) {
  const Clock::time_point until =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (Clock::time_point now = Clock::now(); !failed.load(std::memory_order_relaxed) && now < until;
       now = Clock::now()) {
    std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(5), until - now));
  }
}

template <class Workload, class CC>
void worker_loop(Workload& workload, const CC& cc, const RunConfig& config, std::size_t index,
                 std::uint64_t tick0, const std::atomic<int>& phase, WorkerStats& stats,
                 WorkerProfiler& profiler) {
  const double ns_per_tick = CycleClock::ns_per_tick();
  TxnContext ctx(workload.max_columns());
  typename Workload::Txn txn;
  Random rng(config.driver.seed * 0x9e3779b97f4a7c15ULL + index);
  AbortBackoff backoff(config.driver.seed * 0x9e3779b97f4a7c15ULL + index);
  bool measuring = false;
  for (;;) {
    const int now = phase.load(std::memory_order_relaxed);
    if (now == kStop) break;
    if (now == kMeasure && !measuring) {
      measuring = true;
      stats.reset_window();
      profiler.start_window();
    }
    ComponentClock* const clock = profiler.begin_span();
    ctx.set_clock(clock);
    workload.generate(txn, rng, index);
    const std::uint64_t start = CycleClock::now();
    ctx.begin(start - tick0);  // wait-die age: kept across retries of this transaction
    bool committed = false, rolled_back = false;
    for (unsigned attempt = 0;; ++attempt) {
      const TxnResult result = workload.execute(txn, ctx, cc, stats);
      if (result.committed) {
        committed = true;
        break;
      }
      if (result.user_rollback) {
        rolled_back = true;
        break;
      }
      ++stats.aborts[static_cast<std::size_t>(result.reason)];
      if (phase.load(std::memory_order_relaxed) == kStop) break;
      backoff.pause(attempt);
    }
    if (rolled_back) {
      ++stats.user_rollbacks;
      continue;
    }
    if (!committed) break;
    ++stats.commits;
    ++stats.commits_by_type[workload.type_of(txn)];
    ++stats.commits_all_phases;
    stats.row_updates_all_phases += workload.row_updates(txn);
    if (measuring) {
      stats.latency.record(static_cast<std::uint64_t>(static_cast<double>(CycleClock::now() - start) * ns_per_tick));
    }
    profiler.end_span(clock);
  }
  profiler.stop_window(stats);
}

template <class Workload, class CC>
RunStats drive(const RunConfig& config, const CC& cc) {
  const DriverConfig& driver = config.driver;
  const std::size_t n = driver.cpus.size();
  Workload workload = make_workload<Workload>(config, n);
  RunStats out;
  out.workers.resize(n);
  std::atomic<int> phase{kLoading};
  std::atomic<std::size_t> loaded{0};
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(n);
  const std::uint64_t tick0 = CycleClock::now();
  CycleClock::ns_per_tick();  // calibrate before the window, not inside it

  const auto load_start = Clock::now();
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      WorkerStats& stats = out.workers[i];
      try {
        stats.site = i;
        if (driver.pin) {
          pin_current_thread(driver.cpus[i]);
          stats.cpu = driver.cpus[i];
        }
        workload.load_site(i);  // first touch by the owner
        WorkerProfiler profiler(config.profile);  // per-thread counters: opened by the thread
        loaded.fetch_add(1);
        while (phase.load(std::memory_order_acquire) == kLoading) {
          if (failed.load()) return;
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        worker_loop(workload, cc, config, i, tick0, phase, stats, profiler);
        stats.observed_cpu = current_cpu();
      } catch (...) {
        errors[i] = std::current_exception();
        failed.store(true);
      }
    });
  }
  while (loaded.load() < n && !failed.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  if (!failed.load()) {
    out.load_s = seconds_since(load_start);
    workload.finish_load(!CC::kLocks);
    out.checks_before = workload.check_figures();
    out.payload_sum_before = figure_or_zero("payload_sum", out.checks_before);
    PerfCounters cpu_counters(config.profile.events, CounterScope::cpu);
    phase.store(kWarmup, std::memory_order_release);
    sleep_unless(driver.warmup_s, failed);
    cpu_counters.enable();
    phase.store(kMeasure, std::memory_order_release);
    const auto window_start = Clock::now();
    sleep_unless(driver.duration_s, failed);
    phase.store(kStop, std::memory_order_release);
    out.measured_s = seconds_since(window_start);
    cpu_counters.disable();
    out.cpu_counters = cpu_counters.read();
  } else {
    phase.store(kStop, std::memory_order_release);
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  out.checks_after = workload.check_figures();
  out.payload_sum_after = figure_or_zero("payload_sum", out.checks_after);
  out.ns_per_tick = CycleClock::ns_per_tick();
  return out;
}

template <class Index>
RunStats drive_with_cc(const RunConfig& config) {
  return with_workload<Index>(config, [&](auto tag) {
    using Workload = typename decltype(tag)::type;
    if (config.engine.cc == CcKind::none) return drive<Workload>(config, NoLocking{});
    return drive<Workload>(config, TwoPhaseLocking{config.engine.lock_policy});
  });
}

template <class Index>
double bare_loop(const RunConfig& config) {
  const std::size_t sites = config.driver.cpus.size();
  if (config.driver.pin) pin_current_thread(config.driver.cpus[0]);
  MicroWorkload<Index> workload(config.micro, config.engine, sites);
  for (std::size_t s = 0; s < sites; ++s) workload.load_site(s);
  workload.finish_load(true);
  typename MicroWorkload<Index>::Txn txn;
  Random rng(config.driver.seed);
  std::uint64_t checksum = 0, done = 0;
  const auto run = [&](double seconds) {
    const auto start = Clock::now();
    const auto until = start + std::chrono::duration<double>(seconds);
    std::uint64_t count = 0;
    do {
      for (int i = 0; i < 256; ++i) {
        workload.generate(txn, rng, 0);
        checksum += workload.bare_access(txn);
      }
      count += 256;
    } while (Clock::now() < until);
    return static_cast<double>(count) / seconds_since(start);
  };
  run(config.driver.warmup_s > 0 ? config.driver.warmup_s : 0.0);
  const double rate = run(config.driver.duration_s);
  done = checksum;  // keep the reads alive
  asm volatile("" : : "r"(done) : "memory");
  return rate;
}

}  // namespace

RunStats run_engine(const RunConfig& config) {
  config.validate();
  if (config.log.enabled()) {
    throw std::invalid_argument("log.mode: the in-process runner has no log; run the deployment through "
                                "islands.launch (one process per instance) to log");
  }
  if (config.engine.index == IndexKind::hash) return drive_with_cc<HashIndex>(config);
  return drive_with_cc<BTreeIndex>(config);
}

double run_bare_loop(const RunConfig& config) {
  config.validate();
  if (parse_workload_kind(config.workload) != WorkloadKind::micro) {
    throw std::invalid_argument("workload: the bare-loop baseline exists for micro only");
  }
  if (config.engine.index == IndexKind::hash) return bare_loop<HashIndex>(config);
  return bare_loop<BTreeIndex>(config);
}

BuildInfo build_info() { return {ISLANDS_COMPILER, ISLANDS_CXX_FLAGS, ISLANDS_BUILD_TYPE}; }

}  // namespace islands
