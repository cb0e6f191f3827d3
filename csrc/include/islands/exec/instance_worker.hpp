#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "islands/common/abort_reason.hpp"
#include "islands/common/backoff.hpp"
#include "islands/common/check.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/common/random.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/exec/client_driver.hpp"
#include "islands/exec/commit_pipeline.hpp"
#include "islands/exec/context_pool.hpp"
#include "islands/exec/fragment.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/exec/system_access.hpp"
#include "islands/exec/two_phase_commit.hpp"
#include "islands/exec/txn_lookahead.hpp"
#include "islands/exec/worker_transport.hpp"
#include "islands/exec/worker_window.hpp"
#include "islands/exec/workload_interface.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/exec/worker_profiler.hpp"
#include "islands/transport/message.hpp"
#include "islands/txn/txn_context.hpp"
#include "islands/exec/txn_part.hpp"

namespace islands {

template <class Workload, class CC>
class InstanceImpl;

//! Where an instance's run is: workers read it once per transaction.
//! What a worker throws when it stops because another worker of its instance failed (an echo
//! of that failure, reported only when no worker has a cause of its own).
inline constexpr const char* kPeerFailed = "another worker of this instance failed";

//! One worker of an instance (internal to exec/instance_impl.hpp): a client driving
//! transactions back to back (retrying aborts), the coordinator of its distributed ones, the
//! participant that serves fragments sent to its site, and the commit pipeline that
//! acknowledges a commit once its log record is durable. In an instance that is the whole
//! deployment there is no transport: every transaction is local and nothing is polled.
//! The worker loop is here; it composes the 2PC steps (exec/two_phase_commit.hpp), the
//! commit pipeline (exec/commit_pipeline.hpp) and the transport (exec/worker_transport.hpp).
template <class Workload, class CC>
class InstanceWorker {
 public:
  //! Worker `local` (its CPU's index in driver.cpus) of `instance`.
  InstanceWorker(InstanceImpl<Workload, CC>& instance, std::size_t local)
      : inst_(instance),
        local_(local),
        gid_(instance.first_site_ + static_cast<std::uint32_t>(local)),
        stats_(instance.stats_.workers[local]),
        measure_(stats_),
        parts_(instance.config_.instance_sites.size()),
        transport_(instance.failed_),
        profiler_(instance.config_.run.profile),
        system_(instance.system_access(local)),
        clients_(instance.config_.run.driver, instance.client_board_.get(), instance.instance_of_site_, gid_,
                 stats_.clients, instance.config_.instance_id, static_cast<std::uint32_t>(local)) {}

  //! Joins the transport mesh (waiting for every peer); nothing to join when this instance is
  //! the whole deployment.
  void attach() {
    if (inst_.config_.instance_sites.size() == 1) return;
    transport_.attach(inst_.config_, gid_, inst_.total_sites_, inst_.workload_.max_part_words());
  }

  //! Drives transactions until the run stops (or the instance fails), then drains the commit
  //! pipeline and shuts down with every peer.
  void run() {
    const RunConfig& config = inst_.config_.run;
    log_ = inst_.log_.get();
    measure_.open();
    pipeline_.open(log_, config.log, gid_, stats_, measure_.ns_per_tick(), CC::kLocks);
    ctx_ = new_context();
    // A restart draws other transactions than the run it continues.
    Random rng(config.driver.seed * 0x9e3779b97f4a7c15ULL + gid_ + (std::uint64_t{inst_.epoch_} << 40));
    AbortBackoff backoff(config.driver.seed * 0x9e3779b97f4a7c15ULL + gid_);
    typename Workload::Txn txn;
    // engine.interleave: the transactions this worker draws are drawn ahead (the same ones, in
    // the same order) and their data prefetched a stage at a time (exec/txn_lookahead.hpp).
    TxnLookahead<Workload> ahead(inst_.workload_, config.engine);
    const auto sample_ticks =
        static_cast<std::uint64_t>(config.driver.timeline_interval_s * 1e9 / measure_.ns_per_tick()) + 1;
    ClientRequest request;  // the client layer's request being served
    // driver.clients = instance_wide: each transaction's home is drawn over this instance's sites.
    draw_sites_ = config.driver.clients == ClientKind::instance_wide
                      ? static_cast<std::uint32_t>(config.driver.cpus.size())
                      : 0;
    stats_.home_sites.assign(inst_.total_sites_, 0);
    // engine.test_service_us: a known service time added to every transaction (latency tests)
    const auto service_ticks = static_cast<std::uint64_t>(config.engine.test_service_us * 1e3 / measure_.ns_per_tick());
    for (;;) {
      // The phase and the transaction under the system-state lock, serving while a phase change bars it.
      const bool measured_before = measure_.measuring();
      const PhaseStep step = measure_.gate(system_, inst_.phase_, inst_.failed_, profiler_, *ctx_,
                                           config.driver.timeline_interval_s, [this] { serve(); }, [this] { serve(); });
      if (step == PhaseStep::stop) break;
      if (step == PhaseStep::wait) continue;
      ComponentClock* const clock = ctx_->clock();
      if (clients_.active()) {
        const std::uint64_t now = CycleClock::now();
        if (!measured_before && measure_.measuring()) clients_.start_window(now);
        clients_.turn(inst_.workload_, now, measure_.measuring(), sample_ticks, measure_.ns_per_tick(),
                      pipeline_.answers_waiting());
        if (!clients_.take(request, now, measure_.measuring())) {
          system_.release();  // idle: nothing to run, so no hold on the system state
          serve();
          transport_.rest();
          continue;
        }
        take_request(txn, request);
      } else if (ahead.depth() == 0) {
        generate(txn, rng);
      } else {
        ahead.next(txn, [&](typename Workload::Txn& drawn) { generate(drawn, rng); });
      }
      split(txn);
      const bool distributed = remote_parts_ > 0;
      const std::uint64_t start = CycleClock::now();
      // Latency from the client's submission (queueing included), or from the first attempt.
      const std::uint64_t latency_from = clients_.active() ? request.submitted : start;
      if (service_ticks > 0) {
        while (CycleClock::now() - start < service_ticks) cpu_relax();
      }
      ctx_->begin(start - inst_.tick0_);
      system_.begin(start);
      bool committed = false, rolled_back = false;
      for (unsigned attempt = 0;; ++attempt) {
        if (attempt > 0) ctx_->retry();  // announced again (storage/epoch_gate.hpp): the abort let go
        const TxnResult result = distributed ? attempt_distributed() : attempt_local();
        if (result.committed) {
          committed = true;
          break;
        }
        if (result.user_rollback) {
          rolled_back = true;
          break;
        }
        ++stats_.aborts[static_cast<std::size_t>(result.reason)];
        if (inst_.phase_.load(std::memory_order_relaxed) >= kStop || inst_.failed_.load()) break;
        serve();
        backoff.pause(attempt, [this] { serve(); });
      }
      system_.end();  // decided: committed (its record appended), rolled back or given up
      if (rolled_back) {
        ++stats_.user_rollbacks;
        if (clients_.active()) clients_.answered(inst_.workload_, request.client, CycleClock::now(), measure_.measuring());
        continue;
      }
      if (!committed) break;
      std::uint64_t read_dependency = 0;
      if (committed_.lsn == 0 && committed_.notify.empty()) {
        // Nothing logged: the read-only rule may still make it wait for what it read.
        read_dependency = pipeline_.read_dependency();
        if (read_dependency == 0) {
          // The common case: no log record to wait for and no participant to tell.
          ctx_->commit();
          measure_.count_commit(latency_from, inst_.workload_.row_updates(txn), inst_.workload_.type_of(txn),
                                distributed);
          if (clients_.active()) {
            clients_.answered(inst_.workload_, request.client, CycleClock::now(), measure_.measuring());
          }
          profiler_.end_span(clock);
          continue;
        }
      }
      finish_commit(latency_from, txn, distributed, clock, read_dependency, request);
      profiler_.end_span(clock);
    }
    ctx_->set_clock(nullptr);
    measure_.stop(profiler_);
    shutdown();
    measure_.finish();
  }

  //! Copies the transport's message counters into this worker's statistics.
  void finish_stats() {
    if (!transport_.attached()) return;
    const TransportStats& t = transport_.stats();
    stats_.messages_sent = t.messages_sent;
    stats_.messages_received = t.messages_received;
    stats_.messages_delayed = transport_.delayed_messages();
    stats_.malformed_messages = t.malformed;
  }

 private:
  friend class TwoPhaseCoordinator;
  friend class TwoPhaseParticipant;

  // What the 2PC steps use of their worker (exec/two_phase_commit.hpp).
  Workload& workload() { return inst_.workload_; }
  CC& cc() { return inst_.cc_; }
  WorkerStats& stats() { return stats_; }
  LogWriter* log() { return log_; }
  std::uint32_t instance_of(std::uint32_t site) const { return inst_.instance_of_site_[site]; }
  ComponentClock* clock() { return ctx_ ? ctx_->clock() : nullptr; }
  CommitPipeline& pipeline() { return pipeline_; }
  void send(std::uint32_t dest, const Message& message) { transport_.send(dest, message); }
  void idle() { transport_.idle(); }
  void check_failed() {
    if (inst_.failed_.load()) throw std::runtime_error(kPeerFailed);
  }
  void recycle(std::unique_ptr<TxnContext> ctx) { contexts_.put(std::move(ctx)); }

  // The transaction of a client's request, drawn here from its seed: its home is this
  // instance's (the clients route every request to the instance owning its home).
  [[gnu::flatten]] void take_request(typename Workload::Txn& txn, const ClientRequest& request) {
    ISLANDS_CHECK(request.site < inst_.instance_of_site_.size() &&
                      inst_.instance_of_site_[request.site] == inst_.config_.instance_id,
                  "a client request reached an instance that does not own its home");
    ++stats_.home_sites[request.site];
    generate_request(inst_.workload_, txn, request);
  }

  // The next transaction of this worker's client (flattened as attempt_local is): at its own
  // site, or (driver.clients = instance_wide) at a site of its instance drawn uniformly.
  [[gnu::flatten]] void generate(typename Workload::Txn& txn, Random& rng) {
    const std::uint32_t site =
        draw_sites_ > 1 ? inst_.first_site_ + static_cast<std::uint32_t>(rng.below(draw_sites_)) : gid_;
    ++stats_.home_sites[site];
    inst_.workload_.generate(txn, rng, site);
  }

  // Splits a transaction into this instance's part and one part per other instance.
  void split(const typename Workload::Txn& txn) {
    if (parts_.size() == 1) {  // the whole deployment: everything is local, nothing to split
      local_words_ = &txn.words;
      remote_parts_ = 0;
      return;
    }
    if constexpr (TellsLocalTxn<Workload>::value) {
      if (inst_.workload_.local_txn(txn)) {  // all here: run its words as they are, uncut
        local_words_ = &txn.words;
        remote_parts_ = 0;
        return;
      }
    }
    local_words_ = &parts_[inst_.config_.instance_id].words;
    inst_.workload_.split(txn, inst_.instance_of_site_, parts_);
    remote_parts_ = 0;
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      if (i != inst_.config_.instance_id && !parts_[i].empty()) ++remote_parts_;
    }
    if (remote_parts_ > 0 && !transport_.attached()) no_transport_for();
  }

  // Transport "none" met a transaction that needs another instance.
  [[noreturn, gnu::noinline]] void no_transport_for() {
    std::size_t other = 0;
    while (other == inst_.config_.instance_id || parts_[other].empty()) ++other;
    throw std::invalid_argument(std::string("transport: '") + kNoTransport + "' runs local work only, but a " +
                                inst_.config_.run.workload + " transaction of site " + std::to_string(gid_) +
                                " needs site " + std::to_string(parts_[other].site) + " of instance " +
                                std::to_string(other) +
                                " (set the workload's multisite/remote shares to 0, or choose unix or shm)");
  }

  // A commit with a log record to wait for or participants to tell, or a read-only one with a
  // `read_dependency` (the read-only rule, CommitPipeline): acknowledged now, or pipelined
  // until its flush. Kept out of line so that the hot loop stays small enough for the
  // compiler to inline the workload's generate and execute into it.
  // Early lock release: the commit record is appended already (attempt_local, or the
  // coordinator's decision record), so its locks go now and the worker keeps its context;
  // only the acknowledgement (phase 2 to the participants included) waits for the flush.
  // Without it the context, locks held, waits in the pipeline and the worker takes another.
  // A read-only transaction releases its (shared) locks at once either way: nothing can
  // depend on it; only its acknowledgement waits for what it read.
  [[gnu::noinline]] void finish_commit(std::uint64_t start, const typename Workload::Txn& txn, bool distributed,
                                       ComponentClock* clock, std::uint64_t read_dependency,
                                       const ClientRequest& request) {
    PendingCommit done;
    done.answer = clients_.active();
    done.client = request.client;
    done.read_only = read_dependency != 0;
    done.lsn = done.read_only ? read_dependency : committed_.lsn;
    done.txn = done.read_only ? 0 : committed_.txn;
    done.start = start;
    done.rows = inst_.workload_.row_updates(txn);
    done.type = inst_.workload_.type_of(txn);
    done.distributed = distributed;
    done.notify.swap(committed_.notify);
    committed_.lsn = 0;
    if (pipeline_.must_wait(done.lsn)) {
      if (done.read_only || pipeline_.early_release()) {
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
      // Flushed on demand (a decision with participants waiting): phase 2 goes out now.
      if (pipeline_.push(std::move(done), clock)) drain_durable();
      wait_for_pipeline_room();
    } else {
      acknowledge(done);
    }
  }

  // flatten: the workload's part is inlined here whole (it is the hot path of every local
  // transaction; left to its heuristics the compiler keeps it out of line in this large class).
  [[gnu::flatten]] TxnResult attempt_local() {
    const auto& words = *local_words_;
    if (TxnHistory* history = ctx_->history()) history->begin(next_txn_id());
    TxnResult result = inst_.workload_.execute_part(words.data(), words.size(), rows_, *ctx_, inst_.cc_, stats_.checksum);
    if constexpr (!CC::kInPlace) {
      // Commit's first step (occ: lock the write set, validate the reads) before the commit record.
      if (result.committed && !inst_.cc_.validate(*ctx_, result.reason)) {
        ctx_->abort();
        result.committed = false;
      }
    }
    if (result.committed && log_ != nullptr && !ctx_->redo().empty()) {
      ComponentScope logging(ctx_->clock(), Component::logging);
      committed_.txn = next_txn_id();
      committed_.lsn = log_->append(LogRecordType::commit, committed_.txn, 0, ctx_->columns(), ctx_->redo().data(),
                                    ctx_->redo().size());
    }
    return result;
  }

  [[gnu::noinline]] TxnResult attempt_distributed() {
    return coordinator_.attempt(*this, next_txn_id(), parts_, inst_.config_.instance_id, *local_words_, *ctx_, rows_,
                                committed_);
  }

  std::uint64_t next_txn_id() {
    return (static_cast<std::uint64_t>(gid_) << 48) | (static_cast<std::uint64_t>(inst_.epoch_) << 32) |
           (++sequence_ & 0xffffffffULL);
  }

  // A commit whose record is durable (or that needs none): phase 2, locks released (unless
  // released early already), counted, and recorded as acknowledged. A participant's part:
  // its vote (commit once its prepare record is durable; read-only once what it read is).
  // "Acknowledged" means: the driver counts it as committed and may tell a client so; in
  // group_commit mode nothing reaches this point before its record (and, for a distributed
  // transaction, every participant's prepare record) is durable, nor a read-only transaction
  // before the log's end it may have read (the read-only rule).
  void acknowledge(PendingCommit& done) {
    if (done.vote) {
      participant_.send_vote(*this, done.vote_to, done.txn, done.vote_value);
      return;
    }
    coordinator_.send_commit(*this, done.notify, done.txn);
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

  // Acknowledges, oldest first, every pipelined commit whose record the flusher made durable.
  void drain_durable() {
    pipeline_.drain([this](PendingCommit& done) { acknowledge(done); });
  }

  // Bounds the pipeline: past max_pending commits waiting for their flush, serve and wait.
  void wait_for_pipeline_room() {
    pipeline_.wait_for_room(
        ctx_->clock(),
        [this] {
          if (!serve_one()) {
            check_failed();
            std::this_thread::yield();
          }
        },
        [this](PendingCommit& done) { acknowledge(done); });
  }

  std::unique_ptr<TxnContext> new_context() {
    return contexts_.take(inst_.workload_.max_columns(), inst_.versions_.get(),
                          inst_.versions_ ? &inst_.histories_[local_] : nullptr, inst_.reclaim_.get(), log_ != nullptr);
  }

  void serve() {
    // Inline and cheap when nothing waits (the doorbell has not rung): a load, no call.
    if (!transport_.attached() || !transport_.may_have_message()) {
      if (!pipeline_.empty()) drain_durable();
      return;
    }
    serve_messages();
  }

  // Out of line, as finish_commit.
  [[gnu::noinline]] void serve_messages() {
    ComponentScope scope(ctx_ ? ctx_->clock() : nullptr, Component::communication);
    while (serve_one()) {
    }
  }

  // Handles one message from the backlog or the transport; false when there was none.
  bool serve_one() {
    const Message* in = transport_.receive();
    if (in == nullptr) {
      drain_durable();  // idle: a good moment to acknowledge what the flusher made durable
      return false;
    }
    dispatch(*in);
    return true;
  }

  void dispatch(const Message& in) {
    switch (in.type) {
      case MessageType::fragment:
        participant_.on_fragment(*this, in);
        break;
      case MessageType::vote:
        coordinator_.on_vote(in, transport_.backlog());
        break;
      case MessageType::decision:
        participant_.on_decision(*this, in);
        break;
      case MessageType::validate:
        participant_.on_validate(*this, in);
        break;
      case MessageType::shutdown:
        ++shutdowns_;
        break;
      default:
        ISLANDS_CHECK(false, "an unexpected message type");
    }
  }

  // Tells every other worker we are done, then serves until all have said the same: FIFO
  // channels mean every decision meant for us has then arrived.
  void shutdown() {
    // Every pipelined commit and vote first (serving meanwhile: a peer may wait on a vote).
    while (!pipeline_.empty()) {
      if (!serve_one()) {
        if (inst_.failed_.load()) return;
        std::this_thread::yield();
      }
      if (log_ != nullptr && log_->failed()) log_->check();
    }
    pipeline_.close();
    if (!transport_.attached()) return;  // no peers to tell
    Message bye;
    bye.type = MessageType::shutdown;
    for (std::uint32_t peer = 0; peer < inst_.total_sites_; ++peer) {
      if (peer != gid_) send(peer, bye);
    }
    while (shutdowns_ + 1 < inst_.total_sites_) {
      if (!serve_one()) {
        if (inst_.failed_.load()) return;
        transport_.idle();
      }
    }
    ISLANDS_CHECK(participant_.idle(), "prepared fragments left without a decision");
  }

  InstanceImpl<Workload, CC>& inst_;
  std::size_t local_;
  std::uint32_t gid_;
  WorkerStats& stats_;
  std::unique_ptr<TxnContext> ctx_;
  WorkerWindow measure_;
  LogWriter* log_ = nullptr;
  CommitRecord committed_;  // the last committed attempt's record, for its acknowledgement
  std::vector<TxnPart> parts_;
  std::size_t remote_parts_ = 0;
  const std::vector<std::uint64_t>* local_words_ = nullptr;  // this instance's part of the current transaction
  std::vector<Row*> rows_;
  ContextPool contexts_;
  std::uint64_t sequence_ = 0;
  std::uint32_t shutdowns_ = 0;
  WorkerTransport transport_;
  CommitPipeline pipeline_;
  TwoPhaseCoordinator coordinator_;
  TwoPhaseParticipant participant_;
  WorkerProfiler profiler_;
  SystemAccess system_;  // the active list and system-state lock (engine.system_structures)
  ClientDriver clients_;  // the client layer's side on this worker (driver.clients)
  std::uint32_t draw_sites_ = 0;  // instance_wide: the instance's sites a home is drawn over (0: own site)
};

}  // namespace islands
