#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "islands/atrapos/monitor_snapshot.hpp"
#include "islands/atrapos/owned_counter.hpp"
#include "islands/atrapos/partition_monitor.hpp"
#include "islands/atrapos/workload_monitor.hpp"
#include "islands/exec/plp_routing.hpp"
#include "islands/workload/routing_unit.hpp"

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
//! snapshot() adds them up. Per committed transaction: one action per operation on its unit,
//! costed an equal share of the transaction's cycles; one synchronization between each two
//! consecutive operations that ran on different workers; one commit.
class PlpMonitor {
 public:
  //! Arrays for `workers` workers over `sites` sites.
  PlpMonitor(std::size_t workers, std::size_t sites) : sites_(sites), commits_(workers) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    for (std::uint64_t s = 0; s < sites; ++s) ranges.emplace_back(s * kUnitsPerSite, (s + 1) * kUnitsPerSite);
    for (std::size_t w = 0; w < workers; ++w) workers_.push_back(std::make_unique<atrapos::WorkloadMonitor>(ranges));
  }

  //! Whether the workers record their commits now (true from the start). A benchmark switches
  //! it off and on during one run to measure what recording costs (benchmarks/plp_monitoring.py):
  //! a worker reads it once per commit, before it takes the commit's cycles.
  bool recording() const noexcept { return recording_.load(std::memory_order_relaxed); }
  //! Switches recording on or off (any thread).
  void set_recording(bool on) noexcept { recording_.store(on, std::memory_order_relaxed); }

  //! Worker `worker` committed the transaction of `words` (cut by `route`; units numbered
  //! from `first_unit`) in `cycles` cycles. Its thread only.
  template <class Workload>
  void record(std::size_t worker, const Workload& workload, const std::vector<std::uint64_t>& words,
              const PlpRoute& route, std::uint64_t first_unit, std::uint64_t cycles) {
    atrapos::WorkloadMonitor& mine = *workers_[worker];
    std::size_t ops = 0;
    for (std::size_t at = 0; at < words.size(); ++ops) at += workload.locate(words.data(), words.size(), at).first;
    const std::uint64_t share = ops == 0 ? 0 : cycles / ops;
    std::uint64_t last = ~std::uint64_t{0};
    for (std::size_t at = 0; at < words.size();) {
      const std::pair<std::size_t, std::uint64_t> op = workload.locate(words.data(), words.size(), at);
      const std::uint64_t unit = op.second - first_unit;
      atrapos::PartitionMonitor& site = mine.partition(unit / kUnitsPerSite);
      site.record_action(static_cast<unsigned>(unit % kUnitsPerSite), share);
      if (last != ~std::uint64_t{0} && route.owner[last] != route.owner[unit]) {
        site.record_sync(static_cast<unsigned>(unit % kUnitsPerSite), static_cast<std::uint32_t>(last / kUnitsPerSite),
                         static_cast<unsigned>(last % kUnitsPerSite), 0);
      }
      last = unit;
      at += op.first;
    }
    commits_[worker].count.add(1);
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
  std::size_t sites_;
  std::atomic<bool> recording_{true};
  std::vector<Commits> commits_;  // per worker, a cache line each
  std::vector<std::unique_ptr<atrapos::WorkloadMonitor>> workers_;
};

}  // namespace islands
