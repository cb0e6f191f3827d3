#pragma once
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "islands/atrapos/monitor_snapshot.hpp"
#include "islands/atrapos/owned_counter.hpp"
#include "islands/atrapos/partition_monitor.hpp"
#include "islands/atrapos/workload_monitor.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/exec/plp/plp_routing.hpp"
#include "islands/exec/routing_unit.hpp"

namespace islands {

static_assert(kUnitsPerSite == atrapos::kSubPartitions, "a site's routing units are its monitor's sub-partitions");

//! engine.plp_monitor: ATraPos's trace of a PLP instance (paper 002 Sec V-D), recorded by the
//! workers as they commit and summed by whichever thread reads it (the controller's monitor
//! thread, or the run's end).
//!
//! Partitions are the instance's sites, sub-partitions their routing units (unit u is
//! sub-partition u % 10 of site u / 10), whoever owns them now: the statistics describe the
//! data, the routing table says where it runs. Each worker writes its own arrays (one
//! atrapos::WorkloadMonitor per worker: thread-local, OwnedCounter, no locked instruction);
//! snapshot() adds them up.
//!
//! Counts, by the coordinator per committed transaction (record): one action per operation on
//! its unit; one synchronization between each two consecutive operations that ran on
//! different workers; one commit. Commits and synchronizations are exact; so are the actions
//! of a transaction spread over several workers. A transaction on its coordinator's partition
//! alone (the common case, with no synchronization) has its actions counted for one in
//! kSampleEvery such commits on average (random gaps as below), kSampleEvery each: an unbiased
//! count that keeps the walk over the operations off most commits.
//!
//! Costs, by the worker that runs an action (run_action), in its own arrays: the cycles it
//! itself spent running it, the part a coordinator runs in place for its own transaction as
//! well as the actions it serves for others, shared equally by the action's operations'
//! units. Nothing else is in a cost: no wait at a rendezvous, no other action, no time between
//! actions (a cost taken from the coordinator's draw to its commit holds all of these, and on
//! a balanced load their noise passed the controller's threshold). Every run counts, committed
//! or not (an aborted action's cycles were spent on its unit too). Sampled, to keep the
//! clock reads off most actions: a worker times one action in kSampleEvery on average (the
//! gap between two timed actions drawn uniformly from 1 to 2 kSampleEvery - 1, so that no
//! periodic pattern of the workload lines up with it) and adds kSampleEvery times its cycles:
//! each unit's cost is an unbiased estimate of its cycles. A timed action that took more than
//! kMaxSampleNs was descheduled (no action here runs that long on its own) and is dropped; the
//! next action is timed instead.
//!
//! Draws, by the worker whose client drew a transaction (record_draw), in its own array: the
//! transaction's home unit (its first operation's, where engine.plp_handoff sends it). Our
//! workers are their own clients, so a unit owned by a worker other than the one that draws
//! its transactions costs each of them a hop (a spread transaction, or a hand-off), which the
//! controller's cost model prices (islands/atrapos/cost_model.py, the draw term). Sampled as
//! local commits are: one draw in kSampleEvery on average, counted kSampleEvery times.
class PlpMonitor {
 public:
  //! A worker times one action in this many on average.
  static constexpr std::uint32_t kSampleEvery = 16;
  //! A timed action longer than this (nanoseconds) is dropped as descheduled.
  static constexpr double kMaxSampleNs = 200e3;

  //! Arrays for `workers` workers over `sites` sites.
  PlpMonitor(std::size_t workers, std::size_t sites) : sites_(sites), commits_(workers), samplers_(workers) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    for (std::uint64_t s = 0; s < sites; ++s) ranges.emplace_back(s * kUnitsPerSite, (s + 1) * kUnitsPerSite);
    for (std::size_t w = 0; w < workers; ++w) {
      workers_.push_back(std::make_unique<atrapos::WorkloadMonitor>(ranges));
      samplers_[w].random = 0x9e3779b97f4a7c15ULL * (w + 1);
      drawn_.push_back(std::make_unique<atrapos::OwnedCounter[]>(sites * kUnitsPerSite));
    }
    max_sample_ticks_ = static_cast<std::uint64_t>(kMaxSampleNs / CycleClock::ns_per_tick());
  }

  //! Whether the workers record their commits now (true from the start). A benchmark switches
  //! it off and on during one run to measure what recording costs (benchmarks/plp_monitoring.py):
  //! a worker reads it once per commit and once per action it runs (off, nothing else of the
  //! monitor runs).
  bool recording() const noexcept { return recording_.load(std::memory_order_relaxed); }
  //! Switches recording on or off (any thread).
  void set_recording(bool on) noexcept { recording_.store(on, std::memory_order_relaxed); }

  //! Worker `worker` committed the transaction of `words` (cut by `route`; units numbered
  //! from `first_unit`; `local`: all on its own partition): its actions and synchronizations
  //! counted (see the class comment). Its thread only.
  template <class Workload>
  void record(std::size_t worker, const Workload& workload, const std::vector<std::uint64_t>& words,
              const PlpRoute& route, std::uint64_t first_unit, bool local) {
    commits_[worker].count.add(1);
    std::uint64_t weight = 1;
    if (local) {
      Sampler& sampler = samplers_[worker];
      if (--sampler.commit_countdown != 0) return;
      sampler.commit_countdown = sampler.next_gap();
      weight = kSampleEvery;
    }
    atrapos::WorkloadMonitor& mine = *workers_[worker];
    std::uint64_t last = ~std::uint64_t{0};
    for (std::size_t at = 0; at < words.size();) {
      const std::pair<std::size_t, std::uint64_t> op = workload.locate(words.data(), words.size(), at);
      const std::uint64_t unit = op.second - first_unit;
      atrapos::PartitionMonitor& site = mine.partition(unit / kUnitsPerSite);
      site.record_count(static_cast<unsigned>(unit % kUnitsPerSite), weight);
      if (last != ~std::uint64_t{0} && route.owner[last] != route.owner[unit]) {
        site.record_sync(static_cast<unsigned>(unit % kUnitsPerSite), static_cast<std::uint32_t>(last / kUnitsPerSite),
                         static_cast<unsigned>(last % kUnitsPerSite), 0);
      }
      last = unit;
      at += op.first;
    }
  }

  //! Worker `worker`'s client drew the transaction of `words` (units numbered from
  //! `first_unit`): counted on its home unit, for one draw in kSampleEvery on average (weight
  //! kSampleEvery; see the class comment). Its thread only; nothing while not recording.
  template <class Workload>
  void record_draw(std::size_t worker, const Workload& workload, const std::vector<std::uint64_t>& words,
                   std::uint64_t first_unit) {
    Sampler& sampler = samplers_[worker];
    if (!recording() || words.empty() || --sampler.draw_countdown != 0) return;
    sampler.draw_countdown = sampler.next_gap();
    const std::uint64_t home = workload.locate(words.data(), words.size(), 0).second - first_unit;
    drawn_[worker][home].add(kSampleEvery);
  }
  //! The draws counted so far, [worker][partition][sub] (any thread; see record_draw).
  std::vector<std::uint64_t> drawn() const {
    const std::size_t units = sites_ * kUnitsPerSite;
    std::vector<std::uint64_t> out(drawn_.size() * units);
    for (std::size_t w = 0; w < drawn_.size(); ++w) {
      for (std::size_t u = 0; u < units; ++u) out[w * units + u] = drawn_[w][u].read();
    }
    return out;
  }
  //! Number of workers.
  std::size_t workers() const noexcept { return drawn_.size(); }

  //! Worker `worker` runs the action of `words[0, n)` (units numbered from `first_unit`) by
  //! calling `run()`, and returns what it returns; when the worker's sampler picks this action
  //! (and the monitor records), the cycles `run()` took are its cost (see the class comment).
  //! Its thread only.
  template <class Workload, class Run>
  [[gnu::always_inline]] auto run_action(std::size_t worker, const Workload& workload, const std::uint64_t* words,
                                         std::size_t n, std::uint64_t first_unit, Run&& run) {
    Sampler& sampler = samplers_[worker];
    if (!recording() || --sampler.countdown != 0) return run();
    return run_timed(worker, workload, words, n, first_unit, run);
  }

  //! Worker `worker`'s thread, once before it records anything (its thread only): its CPU
  //! clock, which worker_cpu_ns() reads.
  void register_thread(std::size_t worker) {
    clockid_t clock{};
    if (::pthread_getcpuclockid(::pthread_self(), &clock) == 0) samplers_[worker].cpu_clock = clock;
  }
  //! The CPU time each worker's thread has had so far (ns; 0 for one not registered). Any
  //! thread, while the workers run (PlpControl reads it only while the instance is attached).
  //! In a closed loop each worker is also a client that draws its own transactions, so its
  //! actions' cycles follow the CPU time the machine gives it; the controller uses this to tell
  //! a worker that was given less of its core from one that had less to do
  //! (islands/atrapos/live.py).
  std::vector<std::uint64_t> worker_cpu_ns() const {
    std::vector<std::uint64_t> ns(samplers_.size(), 0);
    for (std::size_t w = 0; w < samplers_.size(); ++w) {
      timespec ts{};
      if (samplers_[w].cpu_clock && ::clock_gettime(*samplers_[w].cpu_clock, &ts) == 0) {
        ns[w] = static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
      }
    }
    return ns;
  }

  //! Every worker's counters summed, now (any thread; see atrapos::MonitorSnapshot).
  atrapos::MonitorSnapshot snapshot() const {
    atrapos::MonitorSnapshot sum = workers_[0]->snapshot();
    for (std::size_t w = 1; w < workers_.size(); ++w) {
      const atrapos::MonitorSnapshot one = workers_[w]->snapshot();
      for (std::size_t i = 0; i < sum.actions.size(); ++i) sum.actions[i] += one.actions[i];
      for (std::size_t i = 0; i < sum.cost.size(); ++i) sum.cost[i] += one.cost[i];
      for (std::size_t i = 0; i < sum.sync_count.size(); ++i) sum.sync_count[i] += one.sync_count[i];
      for (std::size_t i = 0; i < sum.sync_bytes.size(); ++i) sum.sync_bytes[i] += one.sync_bytes[i];
    }
    return sum;
  }
  //! Transactions committed so far, all workers, all phases (any thread).
  std::uint64_t commits() const {
    std::uint64_t n = 0;
    for (const Commits& c : commits_) n += c.count.read();
    return n;
  }
  //! Number of sites (partitions of a snapshot).
  std::size_t sites() const noexcept { return sites_; }

 private:
  struct alignas(64) Commits {
    atrapos::OwnedCounter count;
  };
  // A worker's draw of the actions it times: actions left until the next one, and its generator.
  struct alignas(64) Sampler {
    std::uint32_t countdown = 1;
    std::uint32_t commit_countdown = 1;  // local commits left until one is counted
    std::uint32_t draw_countdown = 1;    // draws left until one is counted (record_draw)
    std::uint64_t random = 0;
    std::optional<clockid_t> cpu_clock;  // the worker thread's CPU clock (register_thread)
    std::uint32_t next_gap() noexcept {  // uniform in [1, 2 kSampleEvery - 1]: mean kSampleEvery
      random ^= random << 13;  // xorshift64
      random ^= random >> 7;
      random ^= random << 17;
      return 1 + static_cast<std::uint32_t>(random % (2 * kSampleEvery - 1));
    }
  };

  template <class Workload, class Run>
  [[gnu::noinline]] auto run_timed(std::size_t worker, const Workload& workload, const std::uint64_t* words,
                                   std::size_t n, std::uint64_t first_unit, Run& run) {
    Sampler& sampler = samplers_[worker];
    sampler.countdown = sampler.next_gap();
    const std::uint64_t start = CycleClock::now();
    auto result = run();
    const std::uint64_t cycles = CycleClock::now() - start;
    if (cycles > max_sample_ticks_ || n == 0) {
      sampler.countdown = 1;  // descheduled: time the next action instead
      return result;
    }
    std::size_t ops = 0;
    for (std::size_t at = 0; at < n; ++ops) at += workload.locate(words, n, at).first;
    const std::uint64_t share = cycles * kSampleEvery / ops;
    atrapos::WorkloadMonitor& mine = *workers_[worker];
    for (std::size_t at = 0; at < n;) {
      const std::pair<std::size_t, std::uint64_t> op = workload.locate(words, n, at);
      const std::uint64_t unit = op.second - first_unit;
      mine.partition(unit / kUnitsPerSite).record_cost(static_cast<unsigned>(unit % kUnitsPerSite), share);
      at += op.first;
    }
    return result;
  }

  std::size_t sites_;
  std::atomic<bool> recording_{true};
  std::uint64_t max_sample_ticks_ = 0;
  std::vector<Commits> commits_;  // per worker, a cache line each
  std::vector<Sampler> samplers_;  // per worker, a cache line each
  std::vector<std::unique_ptr<atrapos::WorkloadMonitor>> workers_;
  std::vector<std::unique_ptr<atrapos::OwnedCounter[]>> drawn_;  // per worker: draws per home unit
};

}  // namespace islands
