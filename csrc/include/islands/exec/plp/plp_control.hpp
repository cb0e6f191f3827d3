#pragma once
#include <atomic>
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

//! The handle a controller thread has on this process's running PLP instance (ATraPos's
//! adaptive loop, islands/atrapos/live.py, runs beside an in-process run and calls it through
//! the binding). One per process: a PLP deployment is one in-process instance, which attaches
//! when its workers start drawing and detaches before they stop; every call made while none
//! is attached answers "nothing" (nullopt, empty, false).
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
  //! The process's handle.
  static PlpControl& process() {
    static PlpControl control;
    return control;
  }

  //! Instance side: `routing` (and `monitor`, null when off) of a running instance whose
  //! workers' parked flags are `parked`; `abandon` as for PlpRouting::apply.
  void attach(PlpRouting& routing, PlpMonitor* monitor, std::atomic<bool>* parked, std::function<bool()> abandon) {
    std::lock_guard<std::mutex> lock(mutex_);
    routing_ = &routing;
    monitor_ = monitor;
    parked_ = parked;
    abandon_ = std::move(abandon);
    attached_.store(true, std::memory_order_release);
  }
  //! Instance side, after attach: how the running workload takes a WorkloadChange
  //! (change_workload on it; throws ConfigError for a value or workload that cannot be).
  void attach_workload(std::function<void(const WorkloadChange&)> change) {
    std::lock_guard<std::mutex> lock(mutex_);
    change_ = std::move(change);
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
  PlpControl() = default;

  std::mutex mutex_;
  std::atomic<bool> attached_{false};
  PlpRouting* routing_ = nullptr;
  PlpMonitor* monitor_ = nullptr;
  std::atomic<bool>* parked_ = nullptr;
  std::function<bool()> abandon_;
  std::function<void(const WorkloadChange&)> change_;
};

}  // namespace islands
