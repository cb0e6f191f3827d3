#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "islands/common/abort_reason.hpp"
#include "islands/common/backoff.hpp"
#include "islands/common/check.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/common/random.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/exec/fragment.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/perf/worker_profiler.hpp"
#include "islands/transport/transport.hpp"
#include "islands/txn/txn_context.hpp"
#include "islands/workload/txn_part.hpp"

namespace islands {

template <class Workload, class CC>
class InstanceImpl;

//! Where an instance's run is: workers read it once per transaction.
enum InstancePhase : int { kLoading, kWaitStart, kWarmup, kMeasure, kStop };

//! One worker of an instance (internal to exec/instance_impl.hpp): a client driving
//! transactions back to back (retrying aborts), the coordinator of its distributed ones, the
//! participant that serves fragments sent to its site, and the commit pipeline that
//! acknowledges a commit once its log record is durable. In an instance that is the whole
//! deployment there is no transport: every transaction is local and nothing is polled.
template <class Workload, class CC>
class InstanceWorker {
 public:
  // A commit (or a participant's commit vote) waiting for its log record to be durable.
  struct Pending {
    std::uint64_t lsn = 0;                     // durable once the log's durable LSN reaches this
    std::uint64_t txn = 0;
    std::unique_ptr<TxnContext> ctx;           // its locks and images (null: the worker's current one)
    std::vector<std::uint32_t> notify;         // coordinator: participants waiting for phase 2
    std::uint64_t start = 0;                   // first attempt, cycle clock
    std::uint64_t rows = 0;                    // rows it updated
    std::size_t type = 0;                      // the workload's transaction type
    bool distributed = false;
    bool vote = false;                         // a participant's vote rather than a commit
    std::uint32_t vote_to = 0;                 // the coordinator's site
  };

  InstanceWorker(InstanceImpl<Workload, CC>& instance, std::size_t local)
      : inst_(instance),
        local_(local),
        gid_(instance.first_site_ + static_cast<std::uint32_t>(local)),
        stats_(instance.stats_.workers[local]),
        parts_(instance.config_.instance_sites.size()),
        profiler_(instance.config_.run.profile) {}

  //! Joins the transport mesh (waiting for every peer); nothing to join when this instance is
  //! the whole deployment.
  void attach() {
    if (inst_.config_.instance_sites.size() == 1) return;
    TransportConfig tc;
    tc.directory = inst_.config_.directory;
    tc.instance_id = gid_;
    tc.n_instances = inst_.total_sites_;
    // The largest message is a fragment holding a whole transaction.
    tc.max_message_bytes = std::max<std::size_t>(
        kMessageHeaderBytes + 5 + 8 * inst_.workload_.max_part_words(), 256);
    std::size_t ring = std::max<std::size_t>(inst_.config_.ring_bytes, kMinRingBytes);
    while (ring < 4 * tc.max_message_bytes) ring *= 2;
    tc.ring_bytes = ring;
    tc.attach_timeout_ms = inst_.config_.attach_timeout_ms;
    endpoint_ = make_transport(inst_.config_.transport, tc);
  }

  void run() {
    const RunConfig& config = inst_.config_.run;
    log_ = inst_.log_.get();
    group_commit_ = log_ != nullptr && config.log.mode == LogMode::group_commit;
    ns_per_tick_ = CycleClock::ns_per_tick();
    if (log_ != nullptr && config.log.record_acks) open_ack_file();
    ctx_ = new_context();
    // A restart draws other transactions than the run it continues.
    Random rng(config.driver.seed * 0x9e3779b97f4a7c15ULL + gid_ + (std::uint64_t{inst_.epoch_} << 40));
    AbortBackoff backoff(config.driver.seed * 0x9e3779b97f4a7c15ULL + gid_);
    typename Workload::Txn txn;
    for (;;) {
      const int phase = inst_.phase_.load(std::memory_order_relaxed);
      if (phase >= kStop || inst_.failed_.load(std::memory_order_relaxed)) break;
      ComponentClock* const clock = profiler_.begin_span();
      ctx_->set_clock(clock);
      serve();
      if (phase < kWarmup) {
        cpu_relax();
        continue;
      }
      if (phase == kMeasure && !measuring_) {
        measuring_ = true;
        stats_.reset_window();
        profiler_.start_window();
      }
      inst_.workload_.generate(txn, rng, gid_);
      split(txn);
      const bool distributed = remote_parts_ > 0;
      const std::uint64_t start = CycleClock::now();
      ctx_->begin(start - inst_.tick0_);
      bool committed = false, rolled_back = false;
      for (unsigned attempt = 0;; ++attempt) {
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
      if (rolled_back) {
        ++stats_.user_rollbacks;
        continue;
      }
      if (!committed) break;
      Pending done;
      done.lsn = commit_lsn_;
      done.txn = commit_txn_;
      done.start = start;
      done.rows = inst_.workload_.row_updates(txn);
      done.type = inst_.workload_.type_of(txn);
      done.distributed = distributed;
      done.notify.swap(notify_);
      commit_lsn_ = 0;
      if (group_commit_ && done.lsn > log_->durable_lsn()) {
        // Flush pipelining: the commit waits for its flush here, holding its locks, while
        // this worker goes on with the next transaction and with serving its messages.
        done.ctx = std::move(ctx_);
        done.ctx->set_clock(nullptr);
        ctx_ = new_context();
        ctx_->set_clock(clock);
        pending_.push_back(std::move(done));
        wait_for_pipeline_room();
      } else {
        acknowledge(done);
      }
      profiler_.end_span(clock);
    }
    ctx_->set_clock(nullptr);
    profiler_.stop_window(stats_);
    shutdown();
  }

  void finish_stats() {
    if (!endpoint_) return;
    const TransportStats& t = endpoint_->stats();
    stats_.messages_sent = t.messages_sent;
    stats_.messages_received = t.messages_received;
    stats_.malformed_messages = t.malformed;
  }

 private:
  // Splits a transaction into this instance's part and one part per other instance.
  void split(const typename Workload::Txn& txn) {
    if (!endpoint_) {  // the whole deployment: everything is local, nothing to split
      local_words_ = &txn.words;
      remote_parts_ = 0;
      return;
    }
    local_words_ = &parts_[inst_.config_.instance_id].words;
    inst_.workload_.split(txn, inst_.instance_of_site_, parts_);
    remote_parts_ = 0;
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      if (i != inst_.config_.instance_id && !parts_[i].empty()) ++remote_parts_;
    }
  }

  TxnResult attempt_local() {
    const auto& words = *local_words_;
    const TxnResult result = inst_.workload_.execute_part(words.data(), words.size(), rows_, *ctx_, inst_.cc_, stats_.checksum);
    if (result.committed && log_ != nullptr && !ctx_->redo().empty()) {
      ComponentScope logging(ctx_->clock(), Component::logging);
      commit_txn_ = next_txn_id();
      commit_lsn_ = log_->append(LogRecordType::commit, commit_txn_, 0, ctx_->columns(), ctx_->redo().data(),
                                 ctx_->redo().size());
    }
    return result;
  }

  std::uint64_t next_txn_id() {
    return (static_cast<std::uint64_t>(gid_) << 48) | (static_cast<std::uint64_t>(inst_.epoch_) << 32) |
           (++sequence_ & 0xffffffffULL);
  }

  // One-shot 2PC: fragments out first (they execute while we do our part), then our part
  // under no-wait locks, then the votes, then the decision to the prepared updaters.
  TxnResult attempt_distributed() {
    current_ = next_txn_id();
    votes_pending_ = 0;
    remote_abort_ = false;
    prepared_participants_.clear();
    ComponentScope sending(ctx_->clock(), Component::communication);
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      if (i == inst_.config_.instance_id || parts_[i].empty()) continue;
      out_.type = MessageType::fragment;
      out_.txn_id = current_;
      const auto& words = parts_[i].words;
      encode_fragment(inst_.workload_.part_updates(words.data(), words.size()), words, out_);
      // The fragment goes to the worker owning the part's site (endpoint = site).
      send(parts_[i].site, out_);
      ++votes_pending_;
      ++stats_.fragments_sent;
    }
    const auto& words = *local_words_;
    const TxnResult local = inst_.workload_.execute_part(words.data(), words.size(), rows_, *ctx_, inst_.cc_.distributed(), stats_.checksum);
    // Waiting for votes (and serving whatever arrives meanwhile) is communication.
    while (votes_pending_ > 0) {
      if (!serve_one()) {
        if (inst_.failed_.load()) throw std::runtime_error("another worker of this instance failed");
        cpu_relax();
      }
    }
    const bool commit = local.committed && !remote_abort_;
    if (!commit) {
      // Presumed abort: nothing is logged, the decision goes out at once.
      for (std::uint32_t participant : prepared_participants_) send_decision(participant, current_, false);
      if (local.committed) ctx_->abort();
      current_ = 0;
      return local.committed ? TxnResult::abort(AbortReason::remote_abort) : local;
    }
    commit_txn_ = current_;
    notify_ = prepared_participants_;  // phase 2 goes out once the decision is durable
    if (log_ != nullptr && (!prepared_participants_.empty() || !ctx_->redo().empty())) {
      // The coordinator's decision record: the participant instances, then its own redo.
      ComponentScope logging(ctx_->clock(), Component::logging);
      decision_instances_.clear();
      for (std::uint32_t site : prepared_participants_) decision_instances_.push_back(inst_.instance_of_site_[site]);
      commit_lsn_ = log_->append(LogRecordType::decision_commit, current_,
                                 static_cast<std::uint32_t>(decision_instances_.size()), ctx_->columns(),
                                 decision_instances_.data(), 4 * decision_instances_.size(),
                                 ctx_->redo().data(), ctx_->redo().size());
    }
    current_ = 0;
    return TxnResult::commit();
  }

  void send_decision(std::uint32_t participant, std::uint64_t txn, bool commit) {
    out_.type = MessageType::decision;
    out_.txn_id = txn;
    out_.payload.assign(1, commit ? 1 : 0);
    send(participant, out_);
    ++stats_.decisions_sent;
  }

  // A commit whose record is durable (or that needs none): phase 2, locks released,
  // counted, and recorded as acknowledged. A participant's prepared part: its vote.
  // "Acknowledged" means: the driver counts it as committed and may tell a client so; in
  // group_commit mode nothing reaches this point before its record (and, for a distributed
  // transaction, every participant's prepare record) is durable.
  void acknowledge(Pending& done) {
    if (done.vote) {
      send_vote(done.vote_to, done.txn, kVoteCommit);
      return;
    }
    for (std::uint32_t participant : done.notify) send_decision(participant, done.txn, true);
    if (done.ctx) {
      done.ctx->commit();
      spare_.push_back(std::move(done.ctx));
    } else {
      ctx_->commit();
    }
    ++stats_.commits;
    ++stats_.commits_by_type[done.type];
    ++stats_.commits_all_phases;
    if (done.distributed) ++stats_.multisite_commits;
    stats_.row_updates_all_phases += done.rows;
    if (measuring_) {
      stats_.latency.record(static_cast<std::uint64_t>(static_cast<double>(CycleClock::now() - done.start) * ns_per_tick_));
    }
    if (ack_fd_ >= 0 && done.lsn != 0) {
      acks_.push_back(done.txn);
      if (acks_.size() >= 512) write_acks();
    }
  }

  // Acknowledges, oldest first, every pipelined commit whose record the flusher made durable.
  void drain_durable() {
    if (pending_.empty()) return;
    const std::uint64_t durable = log_->durable_lsn();
    bool any = false;
    while (!pending_.empty() && pending_.front().lsn <= durable) {
      acknowledge(pending_.front());
      pending_.pop_front();
      any = true;
    }
    if (any && ack_fd_ >= 0) write_acks();
    if (!pending_.empty() && log_->failed()) log_->check();  // full disk, I/O error: stop here
  }

  // Bounds the pipeline: past max_pending commits waiting for their flush, serve and wait.
  void wait_for_pipeline_room() {
    if (pending_.size() < inst_.config_.run.log.max_pending) return;
    ComponentScope logging(ctx_->clock(), Component::logging);
    const std::uint64_t t0 = CycleClock::now();
    while (pending_.size() >= inst_.config_.run.log.max_pending) {
      if (!serve_one()) {
        if (inst_.failed_.load()) throw std::runtime_error("another worker of this instance failed");
        std::this_thread::yield();
      }
      drain_durable();
    }
    stats_.log_wait_ns += static_cast<std::uint64_t>(static_cast<double>(CycleClock::now() - t0) * ns_per_tick_);
  }

  std::unique_ptr<TxnContext> new_context() {
    std::unique_ptr<TxnContext> ctx;
    if (spare_.empty()) {
      ctx = std::make_unique<TxnContext>(inst_.workload_.max_columns());
    } else {
      ctx = std::move(spare_.back());
      spare_.pop_back();
    }
    ctx->capture_redo(log_ != nullptr);
    return ctx;
  }

  void open_ack_file() {
    const std::string path = inst_.config_.run.log.directory + "/acks-" + std::to_string(gid_) + ".bin";
    ack_fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (ack_fd_ < 0) throw std::runtime_error("log.record_acks: cannot open " + path + ": " + std::strerror(errno));
  }

  // The driver's own record of what it acknowledged, written after the acknowledgement and
  // independent of the log (a killed process loses only what was not yet written here).
  void write_acks() {
    if (acks_.empty()) return;
    const ssize_t n = ::write(ack_fd_, acks_.data(), 8 * acks_.size());
    if (n != static_cast<ssize_t>(8 * acks_.size())) throw std::runtime_error("log.record_acks: writing the acknowledgements failed");
    acks_.clear();
  }

  // Sends, serving our own inbound messages into a backlog while the channel is full, so
  // that two workers sending to each other always make progress.
  void send(std::uint32_t dest, const Message& message) {
    while (!endpoint_->send(dest, message)) {
      Message in;
      if (endpoint_->poll(in)) {
        backlog_.push_back(std::move(in));
      } else {
        if (inst_.failed_.load()) throw std::runtime_error("another worker of this instance failed");
        cpu_relax();
      }
    }
  }

  void serve() {
    if (!endpoint_) {
      if (!pending_.empty()) drain_durable();
      return;
    }
    ComponentScope scope(ctx_ ? ctx_->clock() : nullptr, Component::communication);
    while (serve_one()) {
    }
  }

  // Handles one message from the backlog or the transport; false when there was none.
  bool serve_one() {
    if (!backlog_.empty()) {
      Message in = std::move(backlog_.front());
      backlog_.pop_front();
      dispatch(in);
      return true;
    }
    if (!endpoint_ || !endpoint_->poll(in_)) {
      drain_durable();  // idle: a good moment to acknowledge what the flusher made durable
      return false;
    }
    dispatch(in_);
    return true;
  }

  void dispatch(const Message& in) {
    switch (in.type) {
      case MessageType::fragment:
        serve_fragment(in);
        break;
      case MessageType::vote:
        if (!(in.txn_id == current_ && votes_pending_ > 0 && in.payload.size() == 1)) {
          throw std::logic_error("a vote for no transaction in flight: txn " + std::to_string(in.txn_id) +
                                 " from " + std::to_string(in.source) + ", current " + std::to_string(current_) +
                                 ", pending " + std::to_string(votes_pending_) + ", last " + std::to_string(last_voted_) +
                                 ", backlog " + std::to_string(backlog_.size()));
        }
        last_voted_ = in.txn_id;
        --votes_pending_;
        if (in.payload[0] == kVoteAbort) remote_abort_ = true;
        if (in.payload[0] == kVoteCommit) prepared_participants_.push_back(in.source);
        break;
      case MessageType::decision: {
        auto it = prepared_.find(in.txn_id);
        ISLANDS_CHECK(it != prepared_.end() && in.payload.size() == 1, "a decision for no prepared fragment");
        it->second->set_clock(ctx_ ? ctx_->clock() : nullptr);  // the worker's clock now, not when it prepared
        if (log_ != nullptr) {
          // Not forced: until it is durable, recovery asks the coordinator's log.
          ComponentScope logging(it->second->clock(), Component::logging);
          log_->append(in.payload[0] ? LogRecordType::commit_prepared : LogRecordType::abort_prepared, in.txn_id, 0, 0,
                       nullptr, 0);
        }
        if (in.payload[0]) {
          it->second->commit();
        } else {
          it->second->abort();
        }
        spare_.push_back(std::move(it->second));
        prepared_.erase(it);
        break;
      }
      case MessageType::shutdown:
        ++shutdowns_;
        break;
      default:
        ISLANDS_CHECK(false, "an unexpected message type");
    }
  }

  void serve_fragment(const Message& in) {
    bool update = false;
    std::vector<std::uint64_t> keys;
    ISLANDS_CHECK(decode_fragment(in, update, keys), "a malformed fragment payload");
    std::unique_ptr<TxnContext> ctx = new_context();
    ctx->begin(0);
    ctx->set_clock(ctx_ ? ctx_->clock() : nullptr);
    std::vector<Row*> rows;
    std::uint64_t checksum = 0;
    const TxnResult result = inst_.workload_.execute_part(keys.data(), keys.size(), rows, *ctx, inst_.cc_.distributed(), checksum);
    std::uint8_t vote;
    if (!result.committed) {
      vote = kVoteAbort;  // access already undid and released
      spare_.push_back(std::move(ctx));
    } else if (!update) {
      ctx->commit();  // read-only: release now, drop out of phase 2
      vote = kVoteReadOnly;
      spare_.push_back(std::move(ctx));
    } else {
      std::uint64_t lsn = 0;
      if (log_ != nullptr) {
        // The prepare record with this part's redo; in group commit mode the vote waits for
        // it to be durable (pipelined: this worker goes on meanwhile).
        ComponentScope logging(ctx->clock(), Component::logging);
        lsn = log_->append(LogRecordType::prepare, in.txn_id, inst_.instance_of_site_[in.source], ctx->columns(),
                           ctx->redo().data(), ctx->redo().size());
      }
      prepared_.emplace(in.txn_id, std::move(ctx));
      vote = kVoteCommit;
      if (group_commit_ && lsn > log_->durable_lsn()) {
        Pending wait;
        wait.lsn = lsn;
        wait.txn = in.txn_id;
        wait.vote = true;
        wait.vote_to = in.source;
        pending_.push_back(std::move(wait));
        return;
      }
    }
    send_vote(in.source, in.txn_id, vote);
  }

  void send_vote(std::uint32_t to, std::uint64_t txn, std::uint8_t vote) {
    Message reply;
    reply.type = MessageType::vote;
    reply.txn_id = txn;
    reply.payload.assign(1, vote);
    send(to, reply);
  }

  // Tells every other worker we are done, then serves until all have said the same: FIFO
  // channels mean every decision meant for us has then arrived.
  void shutdown() {
    // Every pipelined commit and vote first (serving meanwhile: a peer may wait on a vote).
    while (!pending_.empty()) {
      if (!serve_one()) {
        if (inst_.failed_.load()) return;
        std::this_thread::yield();
      }
      if (log_ != nullptr && log_->failed()) log_->check();
    }
    if (ack_fd_ >= 0) {
      write_acks();
      ::close(ack_fd_);
      ack_fd_ = -1;
    }
    if (!endpoint_) return;  // no peers to tell
    Message bye;
    bye.type = MessageType::shutdown;
    for (std::uint32_t peer = 0; peer < inst_.total_sites_; ++peer) {
      if (peer != gid_) send(peer, bye);
    }
    while (shutdowns_ + 1 < inst_.total_sites_) {
      if (!serve_one()) {
        if (inst_.failed_.load()) return;
        std::this_thread::yield();
      }
    }
    ISLANDS_CHECK(prepared_.empty(), "prepared fragments left without a decision");
  }

  InstanceImpl<Workload, CC>& inst_;
  std::size_t local_;
  std::uint32_t gid_;
  WorkerStats& stats_;
  std::unique_ptr<TxnContext> ctx_;
  LogWriter* log_ = nullptr;
  bool group_commit_ = false;
  bool measuring_ = false;
  double ns_per_tick_ = 1;
  std::deque<Pending> pending_;
  std::uint64_t commit_lsn_ = 0, commit_txn_ = 0;
  std::vector<std::uint32_t> notify_, decision_instances_;
  std::vector<std::uint64_t> acks_;
  int ack_fd_ = -1;
  std::unique_ptr<Transport> endpoint_;
  std::vector<TxnPart> parts_;
  std::size_t remote_parts_ = 0;
  const std::vector<std::uint64_t>* local_words_ = nullptr;  // this instance's part of the current transaction
  std::vector<Row*> rows_;
  Message in_, out_;
  std::deque<Message> backlog_;
  std::unordered_map<std::uint64_t, std::unique_ptr<TxnContext>> prepared_;
  std::vector<std::unique_ptr<TxnContext>> spare_;
  std::uint64_t current_ = 0, sequence_ = 0, last_voted_ = 0;
  std::uint32_t votes_pending_ = 0;
  bool remote_abort_ = false;
  std::vector<std::uint32_t> prepared_participants_;
  std::uint32_t shutdowns_ = 0;
  WorkerProfiler profiler_;
};

}  // namespace islands
