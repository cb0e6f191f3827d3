#pragma once
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "islands/cc/concurrency_control.hpp"
#include "islands/cc/multi_version_cc.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/exec/instance.hpp"
#include "islands/exec/instance_worker.hpp"
#include "islands/exec/plp/plp_worker.hpp"
#include "islands/exec/routing_unit.hpp"
#include "islands/exec/workload_change.hpp"
#include "islands/instance/instance_core.hpp"
#include "islands/log/log_recovery.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/log/snapshot.hpp"
#include "islands/perf/perf_counters.hpp"
#include "islands/storage/epoch_gate.hpp"

namespace islands {

namespace detail {
//! Whether workload W can ask a run to end before its time (it has `std::string stop_reason() const`).
template <class W, class = void>
struct HasStopReason : std::false_type {};
template <class W>
struct HasStopReason<W, std::void_t<decltype(std::declval<const W&>().stop_reason())>> : std::true_type {};
//! Whether workload W deletes rows while transactions run (it has `void reclaim_with(EpochGate&)`,
//! which gives its tables that release rows the instance's reclamation gate).
template <class W, class = void>
struct ReclaimsRows : std::false_type {};
template <class W>
struct ReclaimsRows<W, std::void_t<decltype(std::declval<W&>().reclaim_with(std::declval<EpochGate&>()))>>
    : std::true_type {};
}  // namespace detail

//! An instance's lifecycle for one workload and scheme: workers started, loaded and attached
//! (load), the phases of a run timed and its statistics gathered (run), the log opened or
//! recovered and checkpointed. Built once per engine variant by WorkloadVariants
//! (instance/workload_variants.hpp), in the workload's own translation unit. What does not
//! depend on the workload's type is InstanceCore's (instance/instance_core.hpp), compiled once.
template <class Workload, class CC>
class InstanceImpl final : public InstanceCore {
 public:
  //! An instance of `config` running `Workload` (whose settings are `settings`) under `cc`.
  InstanceImpl(const InstanceConfig& config, const typename Workload::Config& settings, CC cc)
      : InstanceCore(config),
        workload_(settings, config.run.engine, config.run.driver.cpus.size(), config.first_site(),
                  config.total_sites()),
        cc_(cc) {
    if constexpr (detail::ReclaimsRows<Workload>::value) {
      // Every execution model (shared-everything, PLP, one instance per core) joins its
      // workers' contexts to it; a workload that deletes no rows pays nothing.
      reclaim_ = std::make_unique<EpochGate>();
      workload_.reclaim_with(*reclaim_);
    }
  }

  ~InstanceImpl() override {
    failed_.store(true);
    stop_plp_drivers();  // abandons their drains: failed_
    stop_workers();
  }

  void load() override {
    const std::size_t n = config_.run.driver.cpus.size();
    tick0_ = CycleClock::now();
    CycleClock::ns_per_tick();
    const auto start = Clock::now();
    // engine.plp_units and plp_placement: tables routed apart, where their units start
    if (config_.run.engine.execution == ExecutionKind::plp) make_plp(routing_tables_of(workload_), used_routing_tables_of(workload_));
    make_client_board();
    for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this, i] { worker_main(i, [this, i] { work(i); }); });
    wait_for([&] { return ready_.load() >= n || failed_.load(); });
    join_if_failed();
    try {
      open_log([this] { return recover(); });
    } catch (...) {
      stop_workers();
      throw;
    }
    stats_.load_s = std::chrono::duration<double>(Clock::now() - start).count();
    workload_.finish_load(!CC::kLocks);
    stats_.checks_before = workload_.check_figures();
    stats_.payload_sum_before = figure_or_zero("payload_sum", stats_.checks_before);
  }

  RunStats run(std::int64_t start_at_ns, double warmup_s, double duration_s) override {
    if (threads_.empty()) throw std::logic_error("Instance::run before load");
    const Clock::time_point start{std::chrono::nanoseconds(start_at_ns)};
    const auto warm_end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(warmup_s));
    const auto end = warm_end + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(duration_s));
    phase_.store(kWaitStart);
    notify_waiters();
    wait_until(start);
    PerfCounters cpu_counters(config_.run.profile.events, CounterScope::cpu);
    phase_.store(kWarmup, std::memory_order_release);
    start_reshuffler();
    attach_plp_control([this](const WorkloadChange& c) { change_workload(workload_, c); });
    if (wait_until(warm_end)) {
      cpu_counters.enable();
      set_phase_quiesced(kMeasure);
      const auto window_start = Clock::now();
      wait_until(std::max(end, window_start + (end - warm_end)));  // a whole window after a slow quiesce
      stop_plp_drivers();  // their drains need the workers running
      set_phase_quiesced(kStop);
      stats_.measured_s = seconds_since(window_start);
    } else {
      stop_plp_drivers();
      set_phase_quiesced(kStop);  // stopped (or failed) before the window opened
    }
    cpu_counters.disable();
    stats_.cpu_counters = cpu_counters.read();
    stats_.ns_per_tick = CycleClock::ns_per_tick();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    gather_after_run();
    if (log_) log_->check();  // a failed log is the cause; the workers' errors follow from it
    rethrow_first_error();
    close_log();
    stats_.checks_after = workload_.check_figures();
    if constexpr (std::is_same_v<CC, MultiVersionCc>) cc_.report(stats_.checks_after);  // version store figures
    stats_.payload_sum_after = figure_or_zero("payload_sum", stats_.checks_after);
    gather_history();
    return stats_;
  }

  bool checkpoint() override {
    const LogConfig& log = config_.run.log;
    if (!log_ || !threads_.empty()) return false;
    if constexpr (Workload::kLogs) {
      const std::string path = log_file_path(log.directory, config_.instance_id);
      const auto columns = static_cast<std::uint16_t>(workload_.max_columns());
      SnapshotInfo info;
      info.end_lsn = stats_.log_durable_lsn;  // the log was closed: everything is durable
      info.epoch = epoch_;
      write_snapshot(snapshot_path(log.directory, config_.instance_id), info, columns,
                     [this](const SnapshotRowVisitor& f) { workload_.for_each_row(f); });
      // A crash before the rename leaves the old log, whose records the snapshot covers.
      const std::string fresh = path + ".new";
      LogWriter(log, fresh, info.end_lsn, 0, epoch_).close();
      if (std::rename(fresh.c_str(), path.c_str()) != 0) {
        throw std::runtime_error("checkpoint: cannot rename " + fresh + ": " + std::strerror(errno));
      }
      return true;
    }
    return false;
  }

 private:
  // Sleeps until `until`; false as soon as the run must end sooner: a worker failed, the
  // workload asked to stop, or the machine's available memory fell below
  // driver.min_free_memory_mib (checked every 50 ms; the reason is kept in stats_.stopped_early).
  bool wait_until(Clock::time_point until) {
    for (Clock::time_point now = Clock::now(); now < until; now = Clock::now()) {
      if (failed_.load()) return false;
      if constexpr (detail::HasStopReason<Workload>::value) {
        std::string why = workload_.stop_reason();
        if (!why.empty()) {
          stats_.stopped_early = std::move(why);
          return false;
        }
      }
      if (now >= next_memory_check_) {
        next_memory_check_ = now + std::chrono::milliseconds(50);
        if (short_of_memory()) return false;
      }
      if (phase_.load(std::memory_order_relaxed) >= kWarmup) sample_active();
      std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(2), until - now));
    }
    return true;
  }

  // Recovery (restart): this instance's log replayed onto the freshly loaded data, held to
  // what this instance's sites acknowledged (acks-<site>.bin), where they kept it.
  RecoveryStats recover() {
    if constexpr (Workload::kLogs) {
      RedoTarget target;
      target.clear = [this] { workload_.clear_for_snapshot(); };
      target.apply = [this](std::uint64_t key, const std::int32_t* image, std::size_t columns) {
        return workload_.redo(key, image, columns);
      };
      target.erase = [this](std::uint64_t key) { return workload_.redo_delete(key); };
      if constexpr (ReplaysCommands<Workload>::value) {
        // A command executes again alone, in log order, on this thread: no locks to take.
        struct Replay {
          explicit Replay(std::size_t columns) : ctx(columns) {}
          TxnContext ctx;
          typename Workload::Txn txn;
          std::uint64_t count = 0;
          std::uint64_t checksum = 0;
        };
        auto replay = std::make_shared<Replay>(workload_.max_columns());
        target.replay = [this, replay](const std::uint64_t* words, std::size_t n, std::int32_t wall_seconds) {
          replay->txn.words.assign(words, words + n);
          if (!workload_.expand_command(replay->txn.words)) return false;
          replay->ctx.begin(++replay->count);
          replay->ctx.set_wall_seconds(wall_seconds);
          return execute_whole(workload_, replay->txn, replay->ctx, NoLocking{}, replay->checksum).committed;
        };
      }
      return recover_from_log(config_.run.log.directory, config_.instance_id,
                              static_cast<std::uint16_t>(workload_.max_columns()), target, first_site_,
                              static_cast<std::uint32_t>(config_.run.driver.cpus.size()));
    } else {
      throw std::invalid_argument("recover: " + config_.run.workload + " does not log its writes yet");
    }
  }

  // Worker thread i (InstanceCore::worker_main names and pins it): its site loaded, then its
  // worker run, a PLP worker (engine.execution = plp) or a 2PC one.
  void work(std::size_t i) {
    workload_.load_site(i);
    if (plp_bus_) {
      run_plp_worker(i);
      return;
    }
    InstanceWorker<Workload, CC> worker(*this, i);
    worker.attach();
    if (!ready_and_wait()) return;  // failed while loading
    worker.run();
    worker.finish_stats();
  }

  // A PLP worker (engine.execution = plp): partition i's owner (exec/plp/plp_worker.hpp).
  void run_plp_worker(std::size_t i) {
    if constexpr (std::is_same_v<CC, TwoPhaseLocking>) {
      PlpWorker<Workload, CC> worker(*this, i, *plp_bus_, plp_finished_);
      if (plp_monitor_) plp_monitor_->register_thread(i);  // before ready_: before any reader attaches
      if (!ready_and_wait()) return;  // failed while loading
      worker.run();
    } else {
      (void)i;
      throw std::invalid_argument("engine.execution: plp runs under engine.cc 2pl only");
    }
  }

  template <class Worker, class W, class C>
  friend class WorkerLoop;
  template <class W, class C>
  friend class InstanceWorker;
  template <class W, class C>
  friend class PlpWorker;

  Workload workload_;
  CC cc_;
};

}  // namespace islands
