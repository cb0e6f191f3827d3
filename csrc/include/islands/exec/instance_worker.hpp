#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "islands/common/check.hpp"
#include "islands/common/random.hpp"
#include "islands/exec/client_driver.hpp"
#include "islands/exec/commit_pipeline.hpp"
#include "islands/exec/fragment.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/exec/two_phase_commit.hpp"
#include "islands/exec/txn_lookahead.hpp"
#include "islands/exec/txn_part.hpp"
#include "islands/exec/worker_loop.hpp"
#include "islands/exec/worker_transport.hpp"
#include "islands/exec/workload_interface.hpp"
#include "islands/log/command_entry.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/transport/message.hpp"
#include "islands/txn/txn_context.hpp"

namespace islands {

//! One worker of an instance (internal to instance/instance_impl.hpp), the WorkerLoop policy
//! of one-shot two-phase commit between instances: a client driving transactions back to back
//! (retrying aborts), the coordinator of its distributed ones, the participant that serves
//! fragments sent to its site, and the commit pipeline that acknowledges a commit once its log
//! record is durable. In an instance that is the whole deployment there is no transport: every
//! transaction is local and nothing is polled. The loop is WorkerLoop's (exec/worker_loop.hpp);
//! this policy splits each transaction by instance, composes the 2PC steps
//! (exec/two_phase_commit.hpp) and serves the transport (exec/worker_transport.hpp).
template <class Workload, class CC>
class InstanceWorker final : public WorkerLoop<InstanceWorker<Workload, CC>, Workload, CC> {
 public:
  //! Worker `local` (its CPU's index in driver.cpus) of `instance`.
  InstanceWorker(InstanceImpl<Workload, CC>& instance, std::size_t local)
      : WorkerLoop<InstanceWorker<Workload, CC>, Workload, CC>(instance, local, instance.config_.instance_id, nullptr),
        parts_(instance.config_.instance_sites.size()),
        transport_(instance.failed_),
        log_commands_(instance.config_.run.log.enabled() && instance.config_.run.log.content == LogContent::command) {}

  //! Joins the transport mesh (waiting for every peer); nothing to join when this instance is
  //! the whole deployment.
  void attach() {
    if (inst_.config_.instance_sites.size() == 1) return;
    transport_.attach(inst_.config_, gid_, inst_.total_sites_, inst_.workload_.max_part_words());
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
  using Loop = WorkerLoop<InstanceWorker<Workload, CC>, Workload, CC>;
  friend Loop;
  friend class TwoPhaseCoordinator;
  friend class TwoPhaseParticipant;

  // The loop's state and steps that this policy uses.
  using Loop::inst_, Loop::gid_, Loop::stats_, Loop::ctx_, Loop::log_, Loop::committed_, Loop::pipeline_,
      Loop::clients_, Loop::request_, Loop::rows_, Loop::remote_parts_, Loop::local_words_, Loop::check_failed,
      Loop::clock, Loop::new_context, Loop::next_txn_id, Loop::recycle, Loop::serve_one;

  // What the 2PC steps use of their worker (exec/two_phase_commit.hpp), beside the loop's
  // new_context, recycle, serve_one and check_failed.
  Workload& workload() { return inst_.workload_; }
  CC& cc() { return inst_.cc_; }
  WorkerStats& stats() { return stats_; }
  LogWriter* log() { return log_; }
  std::uint32_t instance_of(std::uint32_t site) const { return inst_.instance_of_site_[site]; }
  CommitPipeline& pipeline() { return pipeline_; }
  void send(std::uint32_t dest, const Message& message) { transport_.send(dest, message); }
  void idle() { transport_.idle(); }

  // WorkerLoop's hooks.
  void started() {
    // driver.clients = instance_wide: each transaction's home is drawn over this instance's sites.
    const RunConfig& config = inst_.config_.run;
    draw_sites_ = config.driver.clients == ClientKind::instance_wide
                      ? static_cast<std::uint32_t>(config.driver.cpus.size())
                      : 0;
    stats_.home_sites.assign(inst_.total_sites_, 0);
  }

  // The next transaction: a client's request, or this worker's own draw (through the
  // lookahead pipeline, engine.interleave), split by instance.
  typename Workload::Txn* next(typename Workload::Txn& txn, Random& rng, TxnLookahead<Workload>& ahead,
                               bool measured_before) {
    if (clients_.active()) {
      if (!this->take_request(measured_before)) return nullptr;
      accept(txn);
    } else if (ahead.depth() == 0) {
      generate(txn, rng);
    } else {
      ahead.next(txn, [&](typename Workload::Txn& drawn) { generate(drawn, rng); });
    }
    split(txn);
    return &txn;
  }

  void rest() { transport_.rest(); }

  TxnResult attempt() { return remote_parts_ > 0 ? attempt_distributed() : attempt_local(); }

  // Inline and cheap when nothing waits (the doorbell has not rung): a load, no call.
  bool may_have_message() { return transport_.attached() && transport_.may_have_message(); }

  // Handles one message from the backlog or the transport; false when there was none.
  bool handle_message() {
    const Message* in = transport_.receive();
    if (in == nullptr) return false;
    dispatch(*in);
    return true;
  }

  // A participant's part in the pipeline: its vote (commit once its prepare record is
  // durable; read-only once what it read is).
  bool vote(PendingCommit& done) {
    if (!done.vote) return false;
    participant_.send_vote(*this, done.vote_to, done.txn, done.vote_value);
    return true;
  }

  // Phase 2 to the participants of an acknowledged commit.
  void notify_commit(const std::vector<std::uint32_t>& participants, std::uint64_t txn) {
    coordinator_.send_commit(*this, participants, txn);
  }

  // The transaction of the client's request taken (request_), drawn here from its seed: its
  // home is this instance's (the clients route every request to the instance owning its home).
  [[gnu::flatten]] void accept(typename Workload::Txn& txn) {
    const ClientRequest& request = request_;
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

  // flatten: the workload's part is inlined here whole (it is the hot path of every local
  // transaction; left to its heuristics the compiler keeps it out of line in this large class).
  [[gnu::flatten]] TxnResult attempt_local() {
    const auto& words = *local_words_;
    if (TxnHistory* history = ctx_->history()) history->begin(next_txn_id());
    // log.content = command: a transaction the workload can replay logs its words (as many as
    // its command keeps), not its rows.
    std::size_t command = 0;
    if constexpr (ReplaysCommands<Workload>::value) {
      if (log_commands_) {
        command = inst_.workload_.command_words(words.data(), words.size());
        ctx_->capture_redo(command == 0);
      }
    }
    TxnResult result = inst_.workload_.execute_part(words.data(), words.size(), rows_, *ctx_, inst_.cc_, stats_.checksum);
    if constexpr (!CC::kInPlace) {
      // Commit's first step (occ: lock the write set, validate the reads) before the commit record.
      if (result.committed && !inst_.cc_.validate(*ctx_, result.reason)) {
        ctx_->abort();
        result.committed = false;
      }
    }
    if (result.committed && log_ != nullptr && command != 0) {
      ComponentScope logging(ctx_->clock(), Component::logging);
      committed_.txn = next_txn_id();
      command_bytes_.clear();
      append_command(command_bytes_, words.data(), command);
      committed_.lsn = log_->append(LogRecordType::command, committed_.txn,
                                    static_cast<std::uint32_t>(ctx_->wall_seconds_read()), ctx_->columns(),
                                    command_bytes_.data(), command_bytes_.size());
    } else if (result.committed && log_ != nullptr && !ctx_->redo().empty()) {
      ComponentScope logging(ctx_->clock(), Component::logging);
      committed_.txn = next_txn_id();
      committed_.lsn = log_->append(LogRecordType::commit, committed_.txn, 0, ctx_->columns(), ctx_->redo().data(),
                                    ctx_->redo().size());
    }
    if (command != 0) ctx_->capture_redo(true);  // a distributed transaction on this context logs its rows
    return result;
  }

  [[gnu::noinline]] TxnResult attempt_distributed() {
    return coordinator_.attempt(*this, next_txn_id(), parts_, inst_.config_.instance_id, *local_words_, *ctx_, rows_,
                                committed_);
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

  // The end of the shutdown, its pipeline drained: tells every other worker we are done, then
  // serves until all have said the same: FIFO channels mean every decision meant for us has
  // then arrived.
  void leave() {
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

  std::vector<TxnPart> parts_;
  std::uint32_t shutdowns_ = 0;
  WorkerTransport transport_;
  TwoPhaseCoordinator coordinator_;
  TwoPhaseParticipant participant_;
  std::uint32_t draw_sites_ = 0;  // instance_wide: the instance's sites a home is drawn over (0: own site)
  // log.content = command with a log: local transactions the workload replays log their words.
  bool log_commands_ = false;
  PodVector<unsigned char> command_bytes_;  // the command being logged
};

}  // namespace islands
