#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "islands/exec/client_board.hpp"
#include "islands/exec/instance.hpp"
#include "islands/exec/instance_config.hpp"
#include "islands/exec/plp/plp_bus.hpp"
#include "islands/exec/plp/plp_control.hpp"
#include "islands/exec/plp/plp_monitor.hpp"
#include "islands/exec/plp/plp_ownership_check.hpp"
#include "islands/exec/plp/plp_reshuffler.hpp"
#include "islands/exec/plp/plp_routing.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/exec/system_access.hpp"
#include "islands/exec/system_structures.hpp"
#include "islands/log/log_recovery.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/storage/epoch_gate.hpp"
#include "islands/txn/txn_history.hpp"

namespace islands {

//! What an instance's lifecycle does whatever its workload and scheme (internal to
//! instance/instance_impl.hpp, compiled once in src/instance/instance_core.cpp): the state the
//! workers and the lifecycle share (phase, failure, threads, statistics, log, system
//! structures, client board, PLP's bus, routing, monitor and drivers) and the steps that do not
//! depend on the workload's type. InstanceImpl<Workload, CC> adds the workload and the scheme,
//! and the steps that touch them; its workers (WorkerLoop and its policies) read this state.
class InstanceCore : public Instance::Impl {
 public:
  using Clock = std::chrono::steady_clock;  //!< the clock a run's phases are timed on

  void set_plp_control(PlpControl* control) override { plp_control_ = control; }

 protected:
  //! The state of an instance of `config` (nothing started).
  explicit InstanceCore(const InstanceConfig& config);
  ~InstanceCore() override;

  //! load(): engine.execution = plp's structures, for `tables` tables routed apart of which
  //! the mix uses `used_tables` (a bit each): the bus, the routing table placed by
  //! engine.plp_placement, the monitor, the park flags and (test mode) the ownership check.
  void make_plp(std::size_t tables, std::uint64_t used_tables);
  //! load(): driver.clients = closed or open: the client board (a queue per PLP worker, or the
  //! deployment's board with a stash per worker).
  void make_client_board();
  //! load(): after the workers reported ready (or one failed): stops them and rethrows the
  //! first error when one failed.
  void join_if_failed();
  //! load(): the log opened for appending after its last valid record (a fresh run refuses to
  //! overwrite a log); `recover` replays it first when config.recover (returns what it found).
  void open_log(const std::function<RecoveryStats()>& recover);
  //! The statistics a run gathers once its workers stopped (PLP's repartitionings, the
  //! clients' queues, the monitor, the history), before the log closes.
  void gather_after_run();
  //! The log closed and its statistics kept (after the workers' errors were rethrown).
  void close_log();
  //! Every worker's committed attempts, concatenated for RunStats::history (test mode).
  void gather_history();

  //! Changes the run's phase with no transaction running (see the .cpp).
  void set_phase_quiesced(int phase);
  //! Worker `worker`'s access to the system structures (its socket's part, or the one part).
  SystemAccess system_access(std::size_t worker);
  //! One sample of the active lists: the age of the oldest running transaction, kept when it is the longest.
  void sample_active();
  //! Whether the machine's available memory is below driver.min_free_memory_mib (said in stats_.stopped_early).
  bool short_of_memory();
  //! Wakes the threads in wait_for (after the state they wait on changed).
  void notify_waiters();
  //! Sleeps until done() (the workers loaded, the start command, a failure); the 5 ms timeout
  //! covers a change made without notify_waiters. Asleep rather than polling: with 192
  //! instances on two CPUs, 200 us polls of every loading instance's threads took both CPUs.
  template <class Done>
  void wait_for(Done done) {
    std::unique_lock<std::mutex> lock(wait_mutex_);
    while (!done()) wait_cv_.wait_for(lock, std::chrono::milliseconds(5));
  }
  //! Names, pins and runs worker thread `i`: `work()` loads its site and runs its worker; an
  //! exception is kept as the worker's error and fails the instance.
  void worker_main(std::size_t i, const std::function<void()>& work);
  //! Marks worker `i` ready, then waits for the start (or a failure); false when the instance
  //! failed while loading (the worker then returns).
  bool ready_and_wait();
  //! Stops and joins every worker (the instance is failing or destroyed).
  void stop_workers();
  //! engine.plp_reshuffle_s: random re-partitionings from the warm-up on.
  void start_reshuffler();
  //! A PLP run's controller attached to the routing (exec/plp/plp_control.hpp); `change` applies
  //! a workload change.
  void attach_plp_control(std::function<void(const WorkloadChange&)> change);
  //! When a re-partitioning's drain may give up: no PLP worker will route again.
  std::function<bool()> plp_abandon();
  //! The drain watchdog's line fragment on worker w, read from atomics.
  std::string plp_describe(std::size_t w) const;
  //! Before the workers stop: the reshuffler and a controller thread finish what they apply.
  void stop_plp_drivers();
  //! The cause first: a worker's own error before the "another worker failed" of the others.
  void rethrow_first_error();

  InstanceConfig config_;
  std::uint32_t first_site_;
  std::uint32_t total_sites_;
  std::vector<std::uint32_t> instance_of_site_;
  std::atomic<int> phase_;
  std::atomic<std::size_t> ready_{0};
  std::mutex wait_mutex_;  // wait_for / notify_waiters
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
