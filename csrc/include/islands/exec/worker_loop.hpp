#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "islands/common/abort_reason.hpp"
#include "islands/common/backoff.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/common/random.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/exec/client_driver.hpp"
#include "islands/exec/commit_pipeline.hpp"
#include "islands/exec/context_pool.hpp"
#include "islands/exec/routing_table.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/exec/system_access.hpp"
#include "islands/exec/txn_lookahead.hpp"
#include "islands/exec/worker_profiler.hpp"
#include "islands/exec/worker_window.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/txn/txn_context.hpp"

namespace islands {

template <class Workload, class CC>
class InstanceImpl;

//! What a worker throws when it stops because another worker of its instance failed (an echo
//! of that failure, reported only when no worker has a cause of its own).
inline constexpr const char* kPeerFailed = "another worker of this instance failed";

//! What a worker's policy says before an attempt of its transaction (WorkerLoop::prepare).
enum class AttemptStep {
  go,         //!< run the attempt
  again,      //!< not yet (it waited meanwhile, e.g. for a unit being moved): ask again, no attempt counted
  give_up,    //!< the run stops: the transaction is given up
  forwarded,  //!< a client's request went to another worker: nothing more of it here
};

//! The one worker loop of an instance (internal to instance/instance_impl.hpp), shared by its
//! two kinds of worker through CRTP: `Worker` is the policy, InstanceWorker (one-shot 2PC
//! between instances, exec/instance_worker.hpp) or PlpWorker (partitions owned by workers
//! inside the instance, exec/plp/plp_worker.hpp). The loop is here: the phase gate, the client
//! layer's turn or the worker's own draw (through the TxnLookahead pipeline, engine.interleave),
//! the attempts with their backoff, the commit (acknowledged now, or pipelined until its log
//! record is durable: CommitPipeline), the serving of peers between transactions, the measured
//! window and its counters, and the shutdown's drain. The policy supplies what differs:
//!
//!   Txn* next(Txn& drawn, Random&, TxnLookahead<Workload>&, bool measured_before)
//!       the next transaction to run (the client layer's request: take_request), or nullptr
//!       when there is none now (the loop goes round again; the policy released the system
//!       state and waited)
//!   TxnResult attempt()                     one attempt of the transaction next() gave
//!   bool handle_message()                   receives and handles one peer message; false: none
//!   bool may_have_message()                 cheap: whether handle_message may find one
//!   void notify_commit(const std::vector<std::uint32_t>& peers, std::uint64_t txn)
//!       a commit acknowledged: what its peers are told (2PC: phase 2; PLP: release)
//!   void rest()                             a client-layer worker with no request waits
//!   void leave()                            the end of shutdown, after the pipeline drained
//!
//! and may hide these defaults: started() (before the first transaction), observe() (before
//! each serve), barred() (while a phase change bars the system state; serves),
//! pipeline_full() (before yielding with the commit pipeline full), vote(PendingCommit&)
//! (a 2PC participant's vote instead of a commit; false), release_early(PendingCommit&)
//! (early lock release: what else goes now), drawn_at(start) (where latency starts when no
//! client submitted it; start), prepare(txn, attempt) (before each attempt; AttemptStep::go),
//! decided(txn, committed, rolled_back), committing(txn) and finished() (around the commit).
//! The policy derives from WorkerLoop<itself, ...> and befriends it; the hooks are plain
//! (inlined) member calls, no virtual call.
template <class Worker, class Workload, class CC>
class WorkerLoop {
 public:
  using Txn = typename Workload::Txn;  //!< the workload's transaction

  //! Drives transactions until the run stops (or the instance fails), then drains the commit
  //! pipeline and shuts down with every peer (the policy's leave()).
  void run() {
    const RunConfig& config = inst_.config_.run;
    log_ = inst_.log_.get();  // centralized: the instance's one log
    measure_.open();
    pipeline_.open(log_, config.log, gid_, stats_, measure_.ns_per_tick(), CC::kLocks);
    ctx_ = new_context();
    self().started();
    // A restart draws other transactions than the run it continues.
    Random rng(config.driver.seed * 0x9e3779b97f4a7c15ULL + gid_ + (std::uint64_t{inst_.epoch_} << 40));
    AbortBackoff backoff(config.driver.seed * 0x9e3779b97f4a7c15ULL + gid_);
    Txn drawn;  // what this worker's own client drew (or a client's request)
    // engine.interleave: the transactions this worker draws are drawn ahead (the same ones, in
    // the same order) and their data prefetched a stage at a time (exec/txn_lookahead.hpp).
    TxnLookahead<Workload> ahead(inst_.workload_, config.engine);
    stats_.interleave_depth = ahead.depth();
    sample_ticks_ = static_cast<std::uint64_t>(config.driver.timeline_interval_s * 1e9 / measure_.ns_per_tick()) + 1;
    // engine.test_service_us: a known service time added to every transaction (latency tests)
    const auto service_ticks = static_cast<std::uint64_t>(config.engine.test_service_us * 1e3 / measure_.ns_per_tick());
    for (;;) {
      // The phase and the transaction under the system-state lock, serving while a phase change bars it.
      const bool measured_before = measure_.measuring();
      const PhaseStep step = measure_.gate(system_, inst_.phase_, inst_.failed_, profiler_, *ctx_,
                                           config.driver.timeline_interval_s, [this] { self().barred(); },
                                           [this] { serve(); });
      if (step == PhaseStep::stop) break;
      if (step == PhaseStep::wait) continue;
      ComponentClock* const clock = ctx_->clock();
      Txn* const next = self().next(drawn, rng, ahead, measured_before);
      if (next == nullptr) continue;
      Txn& txn = *next;
      const std::uint64_t start = CycleClock::now();
      // Latency from the client's submission (queueing included), or from its drawing.
      const std::uint64_t latency_from = clients_.active() ? request_.submitted : self().drawn_at(start);
      if (service_ticks > 0) {
        while (CycleClock::now() - start < service_ticks) cpu_relax();
      }
      ctx_->begin(start - inst_.tick0_);
      system_.begin(start);
      bool committed = false, rolled_back = false, forwarded = false;
      for (unsigned attempt = 0;; ++attempt) {
        const AttemptStep prepared = self().prepare(txn, attempt);
        if (prepared == AttemptStep::give_up) break;
        if (prepared == AttemptStep::again) {
          --attempt;
          continue;
        }
        if (prepared == AttemptStep::forwarded) {
          forwarded = true;
          break;
        }
        if (attempt > 0) ctx_->retry();  // announced again (storage/epoch_gate.hpp): the abort let go
        const TxnResult result = self().attempt();
        if (result.committed) {
          committed = true;
          break;
        }
        if (result.user_rollback) {
          rolled_back = true;
          break;
        }
        ++stats_.aborts[static_cast<std::size_t>(result.reason)];
        if (stopping()) break;
        serve();
        backoff.pause(attempt, [this] { serve(); });
      }
      system_.end();  // decided: committed (its record appended), rolled back or given up
      if (forwarded) continue;
      self().decided(txn, committed, rolled_back);
      if (rolled_back) {
        ++stats_.user_rollbacks;
        if (clients_.active()) clients_.answered(inst_.workload_, request_.client, CycleClock::now(), measure_.measuring());
        continue;
      }
      if (!committed) break;
      self().committing(txn);
      // Nothing logged: the read-only rule may still make it wait for what it read.
      const std::uint64_t read_dependency = committed_.lsn == 0 ? pipeline_.read_dependency() : 0;
      if (committed_.lsn == 0 && committed_.notify.empty() && read_dependency == 0) {
        // The common case: no log record to wait for and no peer to tell.
        ctx_->commit();
        measure_.count_commit(latency_from, inst_.workload_.row_updates(txn), inst_.workload_.type_of(txn),
                              remote_parts_ > 0);
        if (clients_.active()) clients_.answered(inst_.workload_, request_.client, CycleClock::now(), measure_.measuring());
      } else {
        finish_commit(latency_from, txn, clock, read_dependency);
      }
      self().finished();
      profiler_.end_span(clock);
    }
    ctx_->set_clock(nullptr);
    measure_.stop(profiler_);
    shutdown();
    measure_.finish();
  }

 protected:
  //! Worker `local` (its CPU's index in driver.cpus) of `instance`; its client layer takes
  //! requests from queue `own_queue` of the instance's board (`routes`: a PLP instance's
  //! routing table, which places requests; null otherwise).
  WorkerLoop(InstanceImpl<Workload, CC>& instance, std::size_t local, std::uint32_t own_queue,
             const RoutingTable* routes)
      : inst_(instance),
        local_(local),
        gid_(instance.first_site_ + static_cast<std::uint32_t>(local)),
        stats_(instance.stats_.workers[local]),
        measure_(stats_),
        profiler_(instance.config_.run.profile),
        system_(instance.system_access(local)),
        clients_(instance.config_.run.driver, instance.client_board_.get(), instance.instance_of_site_, gid_,
                 stats_.clients, own_queue, static_cast<std::uint32_t>(local), routes) {}

  // The policy's defaults (see the class comment); a policy hides the ones it needs.
  void started() {}
  void observe() {}
  void barred() { serve(); }
  void pipeline_full() {}
  bool vote(PendingCommit&) { return false; }
  void release_early(PendingCommit&) {}
  std::uint64_t drawn_at(std::uint64_t start) const { return start; }
  AttemptStep prepare(const Txn&, unsigned) { return AttemptStep::go; }
  void decided(const Txn&, bool, bool) {}
  void committing(const Txn&) {}
  void finished() {}

  //! A transaction id: [site:16][epoch:16][sequence:32], never reused across restarts.
  std::uint64_t next_txn_id() {
    return (static_cast<std::uint64_t>(gid_) << 48) | (static_cast<std::uint64_t>(inst_.epoch_) << 32) |
           (++sequence_ & 0xffffffffULL);
  }

  //! A context from this worker's pool (centralized, test mode only: the history's version map).
  std::unique_ptr<TxnContext> new_context() {
    return contexts_.take(inst_.workload_.max_columns(), inst_.versions_.get(),
                          inst_.versions_ ? &inst_.histories_[local_] : nullptr, inst_.reclaim_.get(), log_ != nullptr);
  }
  //! Returns a context to the pool.
  void recycle(std::unique_ptr<TxnContext> ctx) { contexts_.put(std::move(ctx)); }

  //! Throws kPeerFailed once another worker of the instance failed.
  void check_failed() {
    if (inst_.failed_.load()) throw std::runtime_error(kPeerFailed);
  }
  //! Whether the run stops (or the instance failed): a transaction is then given up.
  bool stopping() const { return inst_.phase_.load(std::memory_order_relaxed) >= kStop || inst_.failed_.load(); }
  //! The current context's component clock (null without a context).
  ComponentClock* clock() { return ctx_ ? ctx_->clock() : nullptr; }

  //! Serves peers between transactions: inline and cheap when nothing waits (a load, no call).
  void serve() {
    self().observe();
    if (!self().may_have_message()) {
      if (!pipeline_.empty()) drain_durable();
      return;
    }
    serve_messages();
  }

  //! Serves every message waiting (out of line, as finish_commit).
  [[gnu::noinline]] void serve_messages() {
    ComponentScope scope(clock(), Component::communication);
    while (serve_one()) {
    }
  }

  //! Handles one message; false when there was none (then acknowledges what is durable).
  bool serve_one() {
    if (self().handle_message()) return true;
    drain_durable();  // idle: a good moment to acknowledge what the flusher made durable
    return false;
  }

  //! Acknowledges, oldest first, every pipelined commit whose record the flusher made durable.
  void drain_durable() {
    pipeline_.drain([this](PendingCommit& done) { acknowledge(done); });
  }

  //! Bounds the pipeline: past max_pending commits waiting for their flush, serve and wait.
  void wait_for_pipeline_room() {
    pipeline_.wait_for_room(
        ctx_->clock(),
        [this] {
          if (!serve_one()) {
            check_failed();
            self().pipeline_full();
            std::this_thread::yield();
          }
        },
        [this](PendingCommit& done) { acknowledge(done); });
  }

  //! driver.clients: the client layer's turn on this worker, then the next request routed to
  //! it into request_ (true). False when none waits: idle, it holds no system state, serves
  //! and rests (the policy's rest()).
  bool take_request(bool measured_before) {
    const std::uint64_t now = CycleClock::now();
    if (!measured_before && measure_.measuring()) clients_.start_window(now);
    clients_.turn(inst_.workload_, now, measure_.measuring(), sample_ticks_, measure_.ns_per_tick(),
                  pipeline_.answers_waiting());
    if (clients_.take(request_, now, measure_.measuring())) return true;
    system_.release();  // idle: nothing to run, so no hold on the system state
    serve();
    self().rest();
    return false;
  }

  //! A commit with a log record to wait for or peers to tell, or a read-only one with a
  //! `read_dependency` (the read-only rule, CommitPipeline): acknowledged now, or pipelined
  //! until its flush. Kept out of line so that the hot loop stays small enough for the
  //! compiler to inline the workload's generate and execute into it.
  //! Early lock release: the commit record is appended already, so its locks go now (the
  //! policy's release_early: PLP's owners too) and the worker keeps its context; only the
  //! acknowledgement (2PC's phase 2 to the participants included) waits for the flush.
  //! Without it the context, locks held, waits in the pipeline and the worker takes another.
  //! A read-only transaction releases its (shared) locks at once either way: nothing can
  //! depend on it; only its acknowledgement waits for what it read.
  [[gnu::noinline]] void finish_commit(std::uint64_t start, const Txn& txn, ComponentClock* clock,
                                       std::uint64_t read_dependency) {
    PendingCommit done;
    done.answer = clients_.active();  // a client's request: answered once acknowledged
    done.client = request_.client;
    done.read_only = read_dependency != 0;
    done.lsn = done.read_only ? read_dependency : committed_.lsn;
    done.txn = committed_.txn;
    done.start = start;
    done.rows = inst_.workload_.row_updates(txn);
    done.type = inst_.workload_.type_of(txn);
    done.distributed = remote_parts_ > 0;
    done.notify.swap(committed_.notify);
    committed_.lsn = 0;
    if (!pipeline_.must_wait(done.lsn)) {
      acknowledge(done);
      return;
    }
    if (done.read_only || pipeline_.early_release()) {
      self().release_early(done);
      ctx_->commit();
      done.released = true;
      if (done.read_only) ++stats_.read_only_waits;
    } else {
      // Flush pipelining: the commit waits for its flush here, holding its locks, while
      // this worker goes on with the next transaction and with serving its messages.
      done.ctx = std::move(ctx_);
      done.ctx->set_clock(nullptr);
      ctx_ = new_context();
      ctx_->set_clock(clock);
    }
    // Flushed on demand (a decision with peers waiting): acknowledged now.
    if (pipeline_.push(std::move(done), clock)) drain_durable();
    wait_for_pipeline_room();
  }

  //! A commit whose record is durable (or that needs none): its peers told (the policy's
  //! notify_commit), locks released (unless released early already), counted, and recorded as
  //! acknowledged; or a 2PC participant's vote (the policy's vote()). "Acknowledged" means:
  //! the driver counts it as committed and may tell a client so; in group_commit mode nothing
  //! reaches this point before its record (and, for a distributed transaction, every
  //! participant's prepare record) is durable, nor a read-only transaction before the log's
  //! end it may have read (the read-only rule).
  void acknowledge(PendingCommit& done) {
    if (self().vote(done)) return;
    self().notify_commit(done.notify, done.txn);
    if (done.ctx) {
      done.ctx->commit();
      contexts_.put(std::move(done.ctx));
    } else if (!done.released) {
      ctx_->commit();
    }
    measure_.count_commit(done.start, done.rows, done.type, done.distributed);
    if (done.answer) clients_.answered(inst_.workload_, done.client, CycleClock::now(), measure_.measuring());
    pipeline_.record_ack(done);
  }

  //! Every pipelined commit and vote acknowledged first (serving meanwhile: a peer may wait on
  //! a vote or an action), then the policy's leave().
  void shutdown() {
    while (!pipeline_.empty()) {
      self().observe();
      if (!serve_one()) {
        if (inst_.failed_.load()) return;
        std::this_thread::yield();
      }
      if (log_ != nullptr && log_->failed()) log_->check();
    }
    pipeline_.close();
    self().leave();
  }

  InstanceImpl<Workload, CC>& inst_;
  std::size_t local_;
  std::uint32_t gid_;
  WorkerStats& stats_;
  WorkerWindow measure_;  // the measured window and the commit counts
  std::unique_ptr<TxnContext> ctx_;
  ContextPool contexts_;
  LogWriter* log_ = nullptr;
  CommitRecord committed_;  // the last committed attempt's record, for its acknowledgement
  CommitPipeline pipeline_;
  WorkerProfiler profiler_;
  SystemAccess system_;   // the active list and system-state lock (engine.system_structures)
  ClientDriver clients_;  // the client layer's side on this worker (driver.clients)
  ClientRequest request_;  // the request being served (driver.clients)
  std::vector<Row*> rows_;
  std::size_t remote_parts_ = 0;  // partitions or instances other than this one the transaction needs
  const std::vector<std::uint64_t>* local_words_ = nullptr;  // the current transaction's part here
  std::uint64_t sample_ticks_ = 1;  // the client layer's sampling period (driver.timeline_interval_s)
  std::uint64_t sequence_ = 0;

 private:
  Worker& self() { return static_cast<Worker&>(*this); }
};

}  // namespace islands
