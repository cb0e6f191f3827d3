#pragma once
#include <pthread.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <string_view>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "islands/cc/concurrency_control.hpp"
#include "islands/cc/multi_version_cc.hpp"
#include "islands/common/cpu_affinity.hpp"
#include "islands/common/system_memory.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/exec/instance.hpp"
#include "islands/exec/instance_worker.hpp"
#include "islands/exec/plp/plp_bus.hpp"
#include "islands/exec/plp/plp_control.hpp"
#include "islands/exec/plp/plp_monitor.hpp"
#include "islands/exec/plp/plp_placement.hpp"
#include "islands/exec/plp/plp_reshuffler.hpp"
#include "islands/exec/plp/plp_routing.hpp"
#include "islands/exec/plp/plp_worker.hpp"
#include "islands/exec/system_access.hpp"
#include "islands/exec/system_structures.hpp"
#include "islands/log/log_recovery.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/log/private_file.hpp"
#include "islands/log/snapshot.hpp"
#include "islands/perf/perf_counters.hpp"
#include "islands/storage/epoch_gate.hpp"
#include "islands/txn/txn_history.hpp"

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
//! (instance/workload_variants.hpp), in the workload's own translation unit.
template <class Workload, class CC>
class InstanceImpl final : public Instance::Impl {
 public:
  using Clock = std::chrono::steady_clock;

  //! An instance of `config` running `Workload` (whose settings are `settings`) under `cc`.
  InstanceImpl(const InstanceConfig& config, const typename Workload::Config& settings, CC cc)
      : config_(config),
        workload_(settings, config.run.engine, config.run.driver.cpus.size(), config.first_site(),
                  config.total_sites()),
        cc_(cc),
        first_site_(config.first_site()),
        total_sites_(config.total_sites()) {
    std::uint32_t site = 0;
    for (std::size_t i = 0; i < config.instance_sites.size(); ++i) {
      for (std::uint32_t s = 0; s < config.instance_sites[i]; ++s) instance_of_site_.push_back(static_cast<std::uint32_t>(i));
      site += config.instance_sites[i];
    }
    std::vector<std::uint32_t> sockets;  // each worker's (its site's) socket
    for (std::size_t i = 0; i < config.run.driver.cpus.size() && !config.site_sockets.empty(); ++i) {
      sockets.push_back(config.site_sockets[first_site_ + i]);
    }
    system_ = std::make_unique<SystemStructures>(config.run.engine.system_structures, std::move(sockets));
    if constexpr (detail::ReclaimsRows<Workload>::value) {
      // Every execution model (shared-everything, PLP, one instance per core) joins its
      // workers' contexts to it; a workload that deletes no rows pays nothing.
      reclaim_ = std::make_unique<EpochGate>();
      workload_.reclaim_with(*reclaim_);
    }
    stats_.workers.resize(config.run.driver.cpus.size());
    errors_.resize(config.run.driver.cpus.size());
    if (config.run.engine.record_history) {
      versions_ = std::make_unique<VersionMap>();
      histories_.resize(config.run.driver.cpus.size());
    }
  }

  ~InstanceImpl() override {
    failed_.store(true);
    stop_plp_drivers();  // abandons their drains: failed_
    phase_.store(kStop);
    notify_waiters();
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

  void load() override {
    const std::size_t n = config_.run.driver.cpus.size();
    tick0_ = CycleClock::now();
    CycleClock::ns_per_tick();
    const auto start = Clock::now();
    if (config_.run.engine.execution == ExecutionKind::plp) {
      plp_bus_ = std::make_unique<PlpBus>(n);
      // engine.plp_units and plp_placement: tables routed apart, where their units start
      const std::size_t tables = routing_tables_of(workload_);
      std::vector<std::uint32_t> socket_of(n);
      for (std::size_t i = 0; i < n; ++i) socket_of[i] = system_->socket_of(i);
      plp_routing_ = std::make_unique<PlpRouting>(
          n, plp_placement(config_.run.engine.plp_placement, n, n, tables, used_routing_tables_of(workload_), socket_of,
                           config_.run.engine.plp_workers_per_cpu));
      plp_routing_->set_skip_drain(config_.run.engine.test_skip_drain);
      plp_routing_->watch().set_describe([this](std::size_t w) { return plp_describe(w); });
      // one monitored partition per (site, table routed apart)
      if (config_.run.engine.plp_monitor) plp_monitor_ = std::make_unique<PlpMonitor>(n, n * tables);
      plp_parked_ = std::make_unique<std::atomic<bool>[]>(n);
      for (std::size_t i = 0; i < n; ++i) plp_parked_[i].store(false, std::memory_order_relaxed);
      if (config_.run.engine.record_history) {  // test mode: units owned exclusively (checked)
        plp_ownership_ = std::make_unique<PlpOwnershipCheck>(plp_routing_->units());
        plp_routing_->set_ownership_check(plp_ownership_.get());
      }
    }
    if (routes_requests(config_.run.driver.clients) && plp_bus_) {  // a queue per PLP worker
      client_board_ = std::make_unique<ClientBoard>(static_cast<std::uint32_t>(n),
                                                    ClientDriver::queue_capacity(config_.run.driver, total_sites_));
    } else if (routes_requests(config_.run.driver.clients)) {
      client_board_ = std::make_unique<ClientBoard>(
          config_.instance_id, static_cast<std::uint32_t>(config_.instance_sites.size()),
          ClientDriver::queue_capacity(config_.run.driver, total_sites_), config_.directory, config_.attach_timeout_ms);
      client_board_->add_stashes(static_cast<std::uint32_t>(n), ClientDriver::stash_capacity(config_.run.driver, total_sites_));
    }
    for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this, i] { worker_main(i); });
    wait_for([&] { return ready_.load() >= n || failed_.load(); });
    if (failed_.load()) {
      phase_.store(kStop);
      notify_waiters();
      for (std::thread& t : threads_) t.join();
      threads_.clear();
      rethrow_first_error();
    }
    try {
      open_log();
    } catch (...) {
      failed_.store(true);
      phase_.store(kStop);
      notify_waiters();
      for (std::thread& t : threads_) t.join();
      threads_.clear();
      throw;
    }
    stats_.load_s = std::chrono::duration<double>(Clock::now() - start).count();
    workload_.finish_load(!CC::kLocks);
    stats_.checks_before = workload_.check_figures();
    stats_.payload_sum_before = figure_or_zero("payload_sum", stats_.checks_before);
  }

  void set_plp_control(PlpControl* control) override { plp_control_ = control; }

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
    if (plp_routing_ && plp_control_) {  // a controller thread may now adapt it (exec/plp/plp_control.hpp)
      plp_control_->attach(*plp_routing_, plp_monitor_.get(), plp_parked_.get(), plp_abandon(),
                           [this](const WorkloadChange& c) { change_workload(workload_, c); });
      plp_attached_ = true;
    }
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
    if (plp_routing_) stats_.repartitioning = plp_routing_->totals();
    if (client_board_ && plp_bus_) {  // every worker's queue
      for (std::uint32_t q = 0; q < client_board_->instances(); ++q) {
        stats_.requests_queued_at_end += client_board_->queue(q).length();
        stats_.requests_refused += client_board_->queue(q).refused();
      }
    } else if (client_board_) {
      stats_.requests_queued_at_end = client_board_->waiting();
      stats_.requests_refused = client_board_->own().refused();  // a full stash hands its request to own()
    }
    if (plp_monitor_) stats_.monitor = plp_monitor_->snapshot();
    if (log_) log_->check();  // a failed log is the cause; the workers' errors follow from it
    rethrow_first_error();
    if (log_) {
      log_->close();
      stats_.log = log_->stats();
      stats_.log_durable_lsn = log_->durable_lsn();
    }
    stats_.checks_after = workload_.check_figures();
    if constexpr (std::is_same_v<CC, MultiVersionCc>) cc_.report(stats_.checks_after);  // version store figures
    stats_.payload_sum_after = figure_or_zero("payload_sum", stats_.checks_after);
    stats_.history.clear();
    if (versions_) {
      // [words of parts, of reads, of writes], then each stream, workers one after another.
      std::uint64_t sizes[3] = {0, 0, 0};
      for (const HistorySink& h : histories_) {
        sizes[0] += h.parts.size();
        sizes[1] += h.reads.size();
        sizes[2] += h.writes.size();
      }
      stats_.history.assign(sizes, sizes + 3);
      for (const HistorySink& h : histories_) stats_.history.insert(stats_.history.end(), h.parts.begin(), h.parts.end());
      for (const HistorySink& h : histories_) stats_.history.insert(stats_.history.end(), h.reads.begin(), h.reads.end());
      for (const HistorySink& h : histories_) stats_.history.insert(stats_.history.end(), h.writes.begin(), h.writes.end());
    }
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

  // Changes the run's phase with no transaction running: the system-state lock taken
  // exclusively (every socket's part), the phase stored, the lock released. Every worker
  // holds the lock shared from its read of the phase to its transaction's outcome, so each
  // transaction runs wholly in one phase and the measured window opens and closes between
  // transactions. Under the lock no transaction may be active (checked on the active lists).
  // A failed worker may have left its hold: then the phase is stored without waiting.
  void set_phase_quiesced(int phase) {
    const auto start = Clock::now();
    const bool quiet = system_->quiesce([this] { return failed_.load(); });
    if (quiet) {
      stats_.quiesce_ns += static_cast<std::uint64_t>(seconds_since(start) * 1e9);
      ISLANDS_CHECK(system_->active() == 0, "system structures: a transaction active under the exclusive lock");
    }
    phase_.store(phase, std::memory_order_release);
    system_->resume();
  }

  // Worker `worker`'s access to the system structures (its socket's part, or the one part).
  SystemAccess system_access(std::size_t worker) {
    const EngineConfig& engine = config_.run.engine;
    return SystemAccess(*system_, worker, engine.test_count_cross_socket ? &stats_.workers[worker].cross_socket_accesses : nullptr,
                        engine.cross_socket_delay_ns);
  }

  // One sample of the active lists: the age of the oldest running transaction, kept when it is
  // the longest seen (a transaction that runs for long, e.g. one stuck at a rendezvous, shows here).
  void sample_active() {
    const std::uint64_t oldest = system_->oldest_begin();
    if (oldest == ActiveTxnList::kNone) return;
    const std::uint64_t now = CycleClock::now();
    if (now <= oldest) return;
    const auto age = static_cast<std::uint64_t>(static_cast<double>(now - oldest) * CycleClock::ns_per_tick());
    stats_.longest_active_ns = std::max(stats_.longest_active_ns, age);
  }

  // Whether the machine's available memory is below driver.min_free_memory_mib (then says so
  // in stats_.stopped_early); false when the floor is 0 or the figure unknown.
  bool short_of_memory() {
    const std::uint64_t floor_mib = config_.run.driver.min_free_memory_mib;
    const std::uint64_t available = floor_mib == 0 ? 0 : available_memory_bytes();
    if (available == 0 || available >= (floor_mib << 20)) return false;
    stats_.stopped_early = "the machine has " + std::to_string(available >> 20) +
                           " MiB of memory available, below driver.min_free_memory_mib " + std::to_string(floor_mib) +
                           ": the run stopped early, before memory ran out";
    return true;
  }

  // Recovery (restart) replays this instance's log onto the freshly loaded data; then the log
  // is opened for appending after its last valid record. A fresh run refuses to overwrite a log.
  void open_log() {
    const LogConfig& log = config_.run.log;
    if (!log.enabled()) return;
    check_log_directory(log.directory);
    struct stat st;
    const std::string path = log_file_path(log.directory, config_.instance_id);
    if (config_.recover) {
      if constexpr (Workload::kLogs) {
        RedoTarget target;
        target.clear = [this] { workload_.clear_for_snapshot(); };
        target.apply = [this](std::uint64_t key, const std::int32_t* image, std::size_t columns) {
          return workload_.redo(key, image, columns);
        };
        target.erase = [this](std::uint64_t key) { return workload_.redo_delete(key); };
        // Held to what this instance's sites acknowledged (acks-<site>.bin), where they kept it.
        stats_.recovery = recover_from_log(log.directory, config_.instance_id,
                                           static_cast<std::uint16_t>(workload_.max_columns()), target, first_site_,
                                           static_cast<std::uint32_t>(config_.run.driver.cpus.size()));
      } else {
        throw std::invalid_argument("recover: " + config_.run.workload + " does not log its writes yet");
      }
    } else if (::stat(path.c_str(), &st) == 0) {
      throw std::invalid_argument("log.directory: " + path +
                                  " already holds the log of an earlier run (restart with recovery, or use an empty directory)");
    }
    const RecoveryStats& r = stats_.recovery;
    // Transaction ids are [site:16][epoch:16][sequence:32]: a restart never reuses an id that
    // an earlier epoch's aborted attempt left in some participant's log.
    epoch_ = r.max_epoch + 1;
    if (epoch_ > 0xffff) throw std::runtime_error("log: " + path + " has seen 65535 restarts; start a new log");
    log_ = std::make_unique<LogWriter>(log, path, r.performed ? r.base_lsn : 0, r.performed ? r.valid_bytes : 0,
                                       epoch_);
  }


  void worker_main(std::size_t i) {
    WorkerStats& stats = stats_.workers[i];
    // Named for tools and tests (ps -L, /proc/self/task/*/comm): "islands-w" and its number.
    ::pthread_setname_np(::pthread_self(), ("islands-w" + std::to_string(i)).substr(0, 15).c_str());
    try {
      stats.site = first_site_ + i;
      if (config_.run.driver.pin) {
        pin_current_thread(config_.run.driver.cpus[i]);
        stats.cpu = config_.run.driver.cpus[i];
      }
      workload_.load_site(i);
      if (plp_bus_) {
        run_plp_worker(i);
        stats.observed_cpu = current_cpu();
        return;
      }
      InstanceWorker<Workload, CC> worker(*this, i);
      worker.attach();
      ready_.fetch_add(1);
      notify_waiters();
      wait_for([&] { return phase_.load(std::memory_order_acquire) != kLoading || failed_.load(); });
      if (phase_.load(std::memory_order_acquire) == kLoading) return;  // failed while loading
      worker.run();
      worker.finish_stats();
      stats.observed_cpu = current_cpu();
    } catch (...) {
      errors_[i] = std::current_exception();
      failed_.store(true);
      notify_waiters();
    }
  }

  // Wakes the threads in wait_for (after the state they wait on changed). Taking the mutex
  // after the change and before the notify means a waiter either saw the change under the
  // mutex or is already waiting when the notify comes: no wake-up is lost.
  void notify_waiters() {
    { std::lock_guard<std::mutex> lock(wait_mutex_); }
    wait_cv_.notify_all();
  }

  // Sleeps until done() (the workers loaded, the start command, a failure). Asleep rather than
  // polling: with 192 instances on two CPUs, 200 us polls of every loading instance's threads
  // took both CPUs and slowed the start-up of the instances they waited for. The 5 ms timeout
  // covers a change made without notify_waiters.
  template <class Done>
  void wait_for(Done done) {
    std::unique_lock<std::mutex> lock(wait_mutex_);
    while (!done()) wait_cv_.wait_for(lock, std::chrono::milliseconds(5));
  }

  // engine.plp_reshuffle_s: random re-partitionings from the warm-up on (exec/plp/plp_reshuffler.hpp).
  void start_reshuffler() {
    const double period = config_.run.engine.plp_reshuffle_s;
    if (!plp_routing_ || period <= 0 || plp_routing_->workers() < 2) return;
    plp_reshuffler_ = std::make_unique<PlpReshuffler>(*plp_routing_, period, config_.run.driver.seed ^ 0x5eed, plp_abandon());
    plp_reshuffler_->start();
  }

  // When a re-partitioning's drain may give up: no PLP worker will route again.
  std::function<bool()> plp_abandon() {
    return [this] { return failed_.load() || plp_finished_.load(std::memory_order_acquire) >= plp_routing_->workers(); };
  }

  // The drain watchdog's line fragment on worker w (exec/plp/plp_drain_watch.hpp): what the
  // instance sees of it from outside, read from atomics.
  std::string plp_describe(std::size_t w) const {
    static constexpr const char* kPhases[] = {"loading", "wait-start", "warmup", "measure", "stop"};
    const int phase = phase_.load(std::memory_order_relaxed);
    return std::string("parked ") + (plp_parked_[w].load(std::memory_order_relaxed) ? "yes" : "no") + ", " +
           std::to_string(plp_bus_->queued(w)) + " messages queued to it, " +
           (plp_bus_->sleeping(w) ? "asleep" : "awake") + "; run phase " +
           (phase >= 0 && phase <= kStop ? kPhases[phase] : "?") + ", " +
           std::to_string(plp_finished_.load(std::memory_order_relaxed)) + " workers finished" +
           (failed_.load(std::memory_order_relaxed) ? ", FAILED" : "");
  }

  // Before the workers stop: the reshuffler and a controller thread finish what they apply.
  void stop_plp_drivers() {
    if (plp_reshuffler_) plp_reshuffler_->stop();
    if (plp_attached_) plp_control_->detach();
    plp_attached_ = false;
  }

  // A PLP worker (engine.execution = plp): partition i's owner (exec/plp/plp_worker.hpp).
  void run_plp_worker(std::size_t i) {
    if constexpr (std::is_same_v<CC, TwoPhaseLocking>) {
      PlpWorker<Workload, CC> worker(*this, i, *plp_bus_, plp_finished_);
      if (plp_monitor_) plp_monitor_->register_thread(i);  // before ready_: before any reader attaches
      ready_.fetch_add(1);
      notify_waiters();
      wait_for([&] { return phase_.load(std::memory_order_acquire) != kLoading || failed_.load(); });
      if (phase_.load(std::memory_order_acquire) == kLoading) return;  // failed while loading
      worker.run();
    } else {
      (void)i;
      throw std::invalid_argument("engine.execution: plp runs under engine.cc 2pl only");
    }
  }

  // The cause first: a worker's own error before the "another worker failed" of the others
  // (whatever their order).
  void rethrow_first_error() {
    std::exception_ptr echo;
    for (const std::exception_ptr& error : errors_) {
      if (!error) continue;
      try {
        std::rethrow_exception(error);
      } catch (const std::runtime_error& e) {
        if (std::string_view(e.what()) == kPeerFailed) {
          if (!echo) echo = error;
          continue;
        }
      } catch (...) {
      }
      std::rethrow_exception(error);
    }
    if (echo) std::rethrow_exception(echo);
  }

  template <class Worker, class W, class C>
  friend class WorkerLoop;
  template <class W, class C>
  friend class InstanceWorker;
  template <class W, class C>
  friend class PlpWorker;

  InstanceConfig config_;
  Workload workload_;
  CC cc_;
  std::uint32_t first_site_;
  std::uint32_t total_sites_;
  std::vector<std::uint32_t> instance_of_site_;
  std::atomic<int> phase_{kLoading};
  std::atomic<std::size_t> ready_{0};
  std::mutex wait_mutex_;               // wait_for / notify_waiters
  std::condition_variable wait_cv_;
  std::atomic<bool> failed_{false};
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
  RunStats stats_;
  std::uint64_t tick0_ = 0;
  std::unique_ptr<LogWriter> log_;  // null when the log is off
  std::uint32_t epoch_ = 0;         // this start's epoch (0: no log)
  Clock::time_point next_memory_check_{};  // when wait_until next reads the available memory
  // History recording (engine.record_history): the rows' versions, each worker's committed attempts.
  std::unique_ptr<VersionMap> versions_;
  std::vector<HistorySink> histories_;
  // engine.execution = plp: the workers' queues, and how many stopped drawing transactions.
  std::unique_ptr<PlpBus> plp_bus_;
  // driver.clients = closed or open: every instance's request queue (exec/client_board.hpp).
  std::unique_ptr<ClientBoard> client_board_;
  // The active-transaction lists and system-state lock (engine.system_structures).
  std::unique_ptr<SystemStructures> system_;
  std::unique_ptr<PlpOwnershipCheck> plp_ownership_;  // test mode (engine.record_history)
  std::unique_ptr<PlpRouting> plp_routing_;
  std::unique_ptr<PlpMonitor> plp_monitor_;  // engine.plp_monitor
  std::unique_ptr<std::atomic<bool>[]> plp_parked_;  // per worker: its core taken away (PlpControl::park)
  PlpControl* plp_control_ = nullptr;                // the run's handle (Instance's constructor), not owned
  bool plp_attached_ = false;                        // to plp_control_
  std::unique_ptr<PlpReshuffler> plp_reshuffler_;  // engine.plp_reshuffle_s
  std::atomic<std::size_t> plp_finished_{0};
  // Released rows wait for it until no running transaction can hold them (storage/epoch_gate.hpp);
  // null when the workload deletes no rows. Outlives the workers' contexts (joined before).
  std::unique_ptr<EpochGate> reclaim_;
};

}  // namespace islands
