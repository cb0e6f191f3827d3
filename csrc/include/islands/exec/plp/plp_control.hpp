#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "islands/atrapos/monitor_snapshot.hpp"
#include "islands/exec/plp/plp_monitor.hpp"
#include "islands/exec/plp/plp_routing.hpp"
#include "islands/exec/workload_change.hpp"

namespace islands {

//! The handle a controller has on one running PLP instance: Python holds it (the binding's
//! RunningInstance, csrc/bindings/running_instance.cpp, which owns it and the run's thread) and
//! gives it to ATraPos's adaptive loop (islands/atrapos/live.py) and to whoever acts on the run.
//! The instance attaches when its workers start drawing and detaches before they stop; every
//! call made while it is not attached answers "nothing" (nullopt, empty, false). A thread can
//! wait for the attachment (wait_attached) instead of polling; the waits end when the run ends.
//!
//! What it offers: the routing table (owners of the units) and apply() (a re-partitioning,
//! exec/plp/plp_routing.hpp); the monitor's counters summed (engine.plp_monitor); the commits so
//! far; and the run-time events: a worker parked (its core taken away: it draws no more
//! transactions; in a pinned run its thread re-pins itself to the CPUs of the unparked
//! workers and goes on serving the actions of the units it still owns there, the OS sharing
//! those cores between it and their workers, as 002's static configuration ran a lost
//! socket's threads on the remaining cores; PlpWorker::follow_park) or given back (its thread
//! back on its own CPU, drawing again); and a change of the workload's mix or skew
//! (WorkloadChange), which the generators see from their next transaction.
class PlpControl {
 public:
  PlpControl() = default;
  PlpControl(const PlpControl&) = delete;
  PlpControl& operator=(const PlpControl&) = delete;

  //! Instance side: `routing` (and `monitor`, null when off) of a running instance whose
  //! workers' parked flags are `parked`; `abandon` as for PlpRouting::apply; `change` how the
  //! running workload takes a WorkloadChange (change_workload on it; throws ConfigError for a
  //! value or workload that cannot be). Wakes every wait_attached.
  void attach(PlpRouting& routing, PlpMonitor* monitor, std::atomic<bool>* parked, std::function<bool()> abandon,
              std::function<void(const WorkloadChange&)> change) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      routing_ = &routing;
      monitor_ = monitor;
      parked_ = parked;
      abandon_ = std::move(abandon);
      change_ = std::move(change);
      attached_.store(true, std::memory_order_release);
    }
    notify();
  }
  //! Instance side: detaches, after any call in progress (a re-partitioning's drain needs the
  //! workers still running).
  void detach() {
    std::lock_guard<std::mutex> lock(mutex_);
    attached_.store(false, std::memory_order_release);
    routing_ = nullptr;
    monitor_ = nullptr;
    parked_ = nullptr;
    abandon_ = nullptr;
    change_ = nullptr;
  }
  //! Run side: the run is over (returned or failed); it will never attach again. Wakes every
  //! wait_attached.
  void end() {
    {
      std::lock_guard<std::mutex> lock(wait_mutex_);
      ended_ = true;
    }
    wake_.notify_all();
  }
  //! Waits up to `timeout_s` (at most a week; infinity too) for the instance to attach; true
  //! once it has (and is still attached), false when the run ended first or the time ran out.
  bool wait_attached(double timeout_s) {
    const double seconds = timeout_s > 0 ? (timeout_s < kLongestWaitS ? timeout_s : kLongestWaitS) : 0.0;  // NaN: 0
    std::unique_lock<std::mutex> lock(wait_mutex_);
    wake_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return ended_ || attached(); });
    return attached();
  }
  //! Whether the run is over (end()).
  bool ended() {
    std::lock_guard<std::mutex> lock(wait_mutex_);
    return ended_;
  }

  //! Whether an instance is attached (its workers are drawing transactions).
  bool attached() const noexcept { return attached_.load(std::memory_order_acquire); }
  //! The owner worker of every unit now; empty when none is attached.
  std::vector<std::uint32_t> owners() {
    std::lock_guard<std::mutex> lock(mutex_);
    return routing_ ? routing_->current()->owner : std::vector<std::uint32_t>{};
  }
  //! Moves units to `target` (PlpRouting::apply); nullopt when none is attached.
  std::optional<PlpRepartition> apply(const std::vector<std::uint32_t>& target) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!routing_) return std::nullopt;
    return routing_->apply(target, abandon_);
  }
  //! The monitor's counters summed over the workers; nullopt when none is attached or its
  //! monitor is off.
  std::optional<atrapos::MonitorSnapshot> snapshot() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!monitor_) return std::nullopt;
    return monitor_->snapshot();
  }
  //! The draws per worker and home unit so far (PlpMonitor::drawn) and the worker count;
  //! nullopt as snapshot().
  std::optional<std::pair<std::size_t, std::vector<std::uint64_t>>> drawn() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!monitor_) return std::nullopt;
    return std::make_pair(monitor_->workers(), monitor_->drawn());
  }
  //! The CPU time of each worker's thread so far (PlpMonitor::worker_cpu_ns); nullopt as snapshot().
  std::optional<std::vector<std::uint64_t>> worker_cpu_ns() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!monitor_) return std::nullopt;
    return monitor_->worker_cpu_ns();
  }
  //! Commits so far (monitor on), all phases; nullopt as snapshot().
  std::optional<std::uint64_t> commits() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!monitor_) return std::nullopt;
    return monitor_->commits();
  }
  //! Switches the monitor's recording on or off (PlpMonitor::set_recording); false when none
  //! is attached or its monitor is off.
  bool set_recording(bool on) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!monitor_) return false;
    monitor_->set_recording(on);
    return true;
  }
  //! Parks worker `worker` (true: its core taken away) or gives it back; false when none is
  //! attached or there is no such worker.
  bool park(std::size_t worker, bool parked) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!routing_ || worker >= routing_->workers()) return false;
    parked_[worker].store(parked, std::memory_order_relaxed);
    return true;
  }
  //! Changes the running workload's mix or skew; false when none is attached. Throws
  //! ConfigError (naming the field) for a value the workload's settings refuse, and then the
  //! run goes on as before.
  bool change(const WorkloadChange& change) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!change_) return false;
    change_(change);
    return true;
  }

 private:
  static constexpr double kLongestWaitS = 7 * 24 * 3600.0;

  void notify() {
    { std::lock_guard<std::mutex> lock(wait_mutex_); }  // a waiter between its check and its sleep sees it
    wake_.notify_all();
  }

  std::mutex mutex_;  // the attached instance's pointers; held through a call (a drain included)
  std::mutex wait_mutex_;  // wait_attached's, apart: a re-partitioning holds mutex_ through its drain
  std::condition_variable wake_;
  bool ended_ = false;
  std::atomic<bool> attached_{false};
  PlpRouting* routing_ = nullptr;
  PlpMonitor* monitor_ = nullptr;
  std::atomic<bool>* parked_ = nullptr;
  std::function<bool()> abandon_;
  std::function<void(const WorkloadChange&)> change_;
};

}  // namespace islands
