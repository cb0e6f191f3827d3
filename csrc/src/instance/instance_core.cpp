#include "islands/instance/instance_core.hpp"

#include <pthread.h>
#include <sys/stat.h>

#include <algorithm>
#include <string_view>
#include <stdexcept>
#include <utility>

#include "islands/common/check.hpp"
#include "islands/common/cpu_affinity.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/common/system_memory.hpp"
#include "islands/exec/client_driver.hpp"
#include "islands/exec/plp/plp_placement.hpp"
#include "islands/exec/worker_loop.hpp"
#include "islands/exec/worker_window.hpp"
#include "islands/log/log_record.hpp"
#include "islands/log/private_file.hpp"

namespace islands {

InstanceCore::InstanceCore(const InstanceConfig& config)
    : config_(config), first_site_(config.first_site()), total_sites_(config.total_sites()), phase_(kLoading) {
  for (std::size_t i = 0; i < config.instance_sites.size(); ++i) {
    for (std::uint32_t s = 0; s < config.instance_sites[i]; ++s) instance_of_site_.push_back(static_cast<std::uint32_t>(i));
  }
  std::vector<std::uint32_t> sockets;  // each worker's (its site's) socket
  for (std::size_t i = 0; i < config.run.driver.cpus.size() && !config.site_sockets.empty(); ++i) {
    sockets.push_back(config.site_sockets[first_site_ + i]);
  }
  system_ = std::make_unique<SystemStructures>(config.run.engine.system_structures, std::move(sockets));
  stats_.workers.resize(config.run.driver.cpus.size());
  errors_.resize(config.run.driver.cpus.size());
  if (config.run.engine.record_history) {
    versions_ = std::make_unique<VersionMap>();
    histories_.resize(config.run.driver.cpus.size());
  }
}

InstanceCore::~InstanceCore() = default;

void InstanceCore::make_plp(std::size_t tables, std::uint64_t used_tables) {
  const std::size_t n = config_.run.driver.cpus.size();
  plp_bus_ = std::make_unique<PlpBus>(n);
  std::vector<std::uint32_t> socket_of(n);
  for (std::size_t i = 0; i < n; ++i) socket_of[i] = system_->socket_of(i);
  plp_routing_ = std::make_unique<PlpRouting>(
      n, plp_placement(config_.run.engine.plp_placement, n, n, tables, used_tables, socket_of,
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

void InstanceCore::make_client_board() {
  if (!routes_requests(config_.run.driver.clients)) return;
  const auto n = static_cast<std::uint32_t>(config_.run.driver.cpus.size());
  const std::size_t capacity = ClientDriver::queue_capacity(config_.run.driver, total_sites_);
  if (plp_bus_) {  // a queue per PLP worker
    client_board_ = std::make_unique<ClientBoard>(n, capacity);
    return;
  }
  client_board_ = std::make_unique<ClientBoard>(config_.instance_id, static_cast<std::uint32_t>(config_.instance_sites.size()),
                                                capacity, config_.directory, config_.attach_timeout_ms);
  client_board_->add_stashes(n, ClientDriver::stash_capacity(config_.run.driver, total_sites_));
}

void InstanceCore::join_if_failed() {
  if (!failed_.load()) return;
  phase_.store(kStop);
  notify_waiters();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  rethrow_first_error();
}

void InstanceCore::stop_workers() {
  failed_.store(true);
  phase_.store(kStop);
  notify_waiters();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

// Recovery (restart) replays this instance's log onto the freshly loaded data; then the log
// is opened for appending after its last valid record. A fresh run refuses to overwrite a log.
void InstanceCore::open_log(const std::function<RecoveryStats()>& recover) {
  const LogConfig& log = config_.run.log;
  if (!log.enabled()) return;
  check_log_directory(log.directory);
  struct stat st;
  const std::string path = log_file_path(log.directory, config_.instance_id);
  if (config_.recover) {
    stats_.recovery = recover();
  } else if (::stat(path.c_str(), &st) == 0) {
    throw std::invalid_argument("log.directory: " + path +
                                " already holds the log of an earlier run (restart with recovery, or use an empty directory)");
  }
  const RecoveryStats& r = stats_.recovery;
  // Transaction ids are [site:16][epoch:16][sequence:32]: a restart never reuses an id that
  // an earlier epoch's aborted attempt left in some participant's log.
  epoch_ = r.max_epoch + 1;
  if (epoch_ > 0xffff) throw std::runtime_error("log: " + path + " has seen 65535 restarts; start a new log");
  log_ = std::make_unique<LogWriter>(log, path, r.performed ? r.base_lsn : 0, r.performed ? r.valid_bytes : 0, epoch_);
}

void InstanceCore::gather_after_run() {
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
}

void InstanceCore::close_log() {
  if (!log_) return;
  log_->close();
  stats_.log = log_->stats();
  stats_.log_durable_lsn = log_->durable_lsn();
}

void InstanceCore::gather_history() {
  stats_.history.clear();
  if (!versions_) return;
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

// Every worker holds the system-state lock shared from its read of the phase to its
// transaction's outcome, so each transaction runs wholly in one phase and the measured window
// opens and closes between transactions. Under the lock no transaction may be active (checked
// on the active lists). A failed worker may have left its hold: then the phase is stored
// without waiting.
void InstanceCore::set_phase_quiesced(int phase) {
  const auto start = Clock::now();
  const bool quiet = system_->quiesce([this] { return failed_.load(); });
  if (quiet) {
    stats_.quiesce_ns += static_cast<std::uint64_t>(seconds_since(start) * 1e9);
    ISLANDS_CHECK(system_->active() == 0, "system structures: a transaction active under the exclusive lock");
  }
  phase_.store(phase, std::memory_order_release);
  system_->resume();
}

SystemAccess InstanceCore::system_access(std::size_t worker) {
  const EngineConfig& engine = config_.run.engine;
  return SystemAccess(*system_, worker, engine.test_count_cross_socket ? &stats_.workers[worker].cross_socket_accesses : nullptr,
                      engine.cross_socket_delay_ns);
}

// A transaction that runs for long (e.g. one stuck at a rendezvous) shows here.
void InstanceCore::sample_active() {
  const std::uint64_t oldest = system_->oldest_begin();
  if (oldest == ActiveTxnList::kNone) return;
  const std::uint64_t now = CycleClock::now();
  if (now <= oldest) return;
  const auto age = static_cast<std::uint64_t>(static_cast<double>(now - oldest) * CycleClock::ns_per_tick());
  stats_.longest_active_ns = std::max(stats_.longest_active_ns, age);
}

// False when the floor is 0 or the figure unknown.
bool InstanceCore::short_of_memory() {
  const std::uint64_t floor_mib = config_.run.driver.min_free_memory_mib;
  const std::uint64_t available = floor_mib == 0 ? 0 : available_memory_bytes();
  if (available == 0 || available >= (floor_mib << 20)) return false;
  stats_.stopped_early = "the machine has " + std::to_string(available >> 20) +
                         " MiB of memory available, below driver.min_free_memory_mib " + std::to_string(floor_mib) +
                         ": the run stopped early, before memory ran out";
  return true;
}

// Taking the mutex after the change and before the notify means a waiter either saw the change
// under the mutex or is already waiting when the notify comes: no wake-up is lost.
void InstanceCore::notify_waiters() {
  { std::lock_guard<std::mutex> lock(wait_mutex_); }
  wait_cv_.notify_all();
}

void InstanceCore::worker_main(std::size_t i, const std::function<void()>& work) {
  WorkerStats& stats = stats_.workers[i];
  // Named for tools and tests (ps -L, /proc/self/task/*/comm): "islands-w" and its number.
  ::pthread_setname_np(::pthread_self(), ("islands-w" + std::to_string(i)).substr(0, 15).c_str());
  try {
    stats.site = first_site_ + i;
    if (config_.run.driver.pin) {
      pin_current_thread(config_.run.driver.cpus[i]);
      stats.cpu = config_.run.driver.cpus[i];
    }
    work();
    stats.observed_cpu = current_cpu();
  } catch (...) {
    errors_[i] = std::current_exception();
    failed_.store(true);
    notify_waiters();
  }
}

bool InstanceCore::ready_and_wait() {
  ready_.fetch_add(1);
  notify_waiters();
  wait_for([&] { return phase_.load(std::memory_order_acquire) != kLoading || failed_.load(); });
  return phase_.load(std::memory_order_acquire) != kLoading;  // false: failed while loading
}

void InstanceCore::start_reshuffler() {
  const double period = config_.run.engine.plp_reshuffle_s;
  if (!plp_routing_ || period <= 0 || plp_routing_->workers() < 2) return;
  plp_reshuffler_ = std::make_unique<PlpReshuffler>(*plp_routing_, period, config_.run.driver.seed ^ 0x5eed, plp_abandon());
  plp_reshuffler_->start();
}

void InstanceCore::attach_plp_control(std::function<void(const WorkloadChange&)> change) {
  if (!plp_routing_ || !plp_control_) return;  // a controller thread may now adapt it (exec/plp/plp_control.hpp)
  plp_control_->attach(*plp_routing_, plp_monitor_.get(), plp_parked_.get(), plp_abandon(), std::move(change));
  plp_attached_ = true;
}

std::function<bool()> InstanceCore::plp_abandon() {
  return [this] { return failed_.load() || plp_finished_.load(std::memory_order_acquire) >= plp_routing_->workers(); };
}

// exec/plp/plp_drain_watch.hpp: what the instance sees of worker w from outside.
std::string InstanceCore::plp_describe(std::size_t w) const {
  static constexpr const char* kPhases[] = {"loading", "wait-start", "warmup", "measure", "stop"};
  const int phase = phase_.load(std::memory_order_relaxed);
  return std::string("parked ") + (plp_parked_[w].load(std::memory_order_relaxed) ? "yes" : "no") + ", " +
         std::to_string(plp_bus_->queued(w)) + " messages queued to it, " +
         (plp_bus_->sleeping(w) ? "asleep" : "awake") + "; run phase " +
         (phase >= 0 && phase <= kStop ? kPhases[phase] : "?") + ", " +
         std::to_string(plp_finished_.load(std::memory_order_relaxed)) + " workers finished" +
         (failed_.load(std::memory_order_relaxed) ? ", FAILED" : "");
}

void InstanceCore::stop_plp_drivers() {
  if (plp_reshuffler_) plp_reshuffler_->stop();
  if (plp_attached_) plp_control_->detach();
  plp_attached_ = false;
}

// Whatever their order.
void InstanceCore::rethrow_first_error() {
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

}  // namespace islands
