#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "islands/common/abort_reason.hpp"
#include "islands/common/check.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/exec/commit_pipeline.hpp"
#include "islands/exec/fragment.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/perf/component_clock.hpp"
#include "islands/transport/message.hpp"
#include "islands/txn/txn_context.hpp"
#include "islands/exec/txn_part.hpp"

namespace islands {

// The coordinator's and the participant's steps of one-shot two-phase commit, for one worker
// (internal to exec/instance_worker.hpp). Each holds its side's state; the steps take the
// worker as `site` (a template: no virtual call) and use only this of it:
//   workload(), cc(), stats(), log() (null: the log is off), instance_of(global site),
//   send(dest, message) (never deadlocks), serve_one() (one inbound message; false: none),
//   idle() (nothing to do until a message arrives: spin, then sleep on the doorbell),
//   check_failed() (throws when another worker of the instance failed), clock() (the
//   worker's component clock), new_context() and recycle(context) (its pool of contexts),
//   pipeline() (its CommitPipeline).
//
// Logging and early lock release (log.early_lock_release; group commit; presumed abort; the
// log's order is commit order within an instance). Only two steps differ with it on and off,
// marked "ELR" (in async mode nothing waits for a flush and none of the waits below exist).
//   Participant, update fragment: executes, appends its prepare record (its redo and the
//     coordinator's instance) and votes commit only once that record is durable (the vote
//     waits in the pipeline; the worker goes on). It keeps its locks until the decision
//     arrives, whatever the setting: until then the coordinator may still abort.
//   Participant, read-only fragment: releases its shared locks at once and votes read-only
//     (it drops out of phase 2). ELR (or cc none, whose local transactions hold no locks
//     through the flush either): the read-only rule (CommitPipeline) makes that vote wait
//     until the log's appended LSN when it finished is durable, since it may have read rows
//     whose commit is not durable yet, which a crash would undo under a transaction that
//     counted on them.
//   Participant, decision: appends commit_prepared (or abort_prepared), not forced, then
//     applies it and releases its locks, with ELR on or off: its prepare record is durable and
//     so is the coordinator's decision (phase 2 goes out only after it), so recovery commits
//     the part even if commit_prepared is lost (it asks the coordinator's log); whatever reads
//     the released rows here logs after commit_prepared.
//   Coordinator: appends its decision record (participant instances + its own redo) once
//     every vote is in. ELR: it releases its own locks right after that append; without it
//     the locks wait with the decision for the flush. Either way phase 2 (commit to the
//     prepared participants) and the acknowledgement wait until the decision is durable: a
//     participant told to commit must never find, after a crash of the coordinator, no
//     decision there (presumed abort would then abort a part another instance committed).
//     Aborts are not logged and go out at once.
//
// Serializability. A transaction needs one moment, its serialization point, when it holds
// every lock it takes and every read it made is still valid. One-shot 2PC executes a part
// when its fragment arrives and votes at once, so the protocol must make that moment exist
// (without it the history checker finds cycles: a reader's part at one instance before a
// writer, at another after it; tests/test_history.py, several instances on few cpus):
//   - The coordinator runs its own part, and takes its locks (occ: locks its write set),
//     before any fragment goes out.
//   - One participant: its vote is the moment (the coordinator's locks are older; occ: the
//     coordinator's reads are validated after the vote). A read-only part releases at once.
//   - Several participants (the fragment says so): one's vote may come before another's
//     locks. So a read-only part keeps its shared locks until the decision (kVoteHeld), and
//     an occ part with reads validates them again on a validate request, sent once every vote
//     is in (kVoteRevalidate; FaRM's lock, then validate). The decision is then the moment.

//! Throws std::runtime_error for a message no peer sends: a stray vote or decision, a vote or
//! fragment whose fields are out of range. Between the instances of one deployment only an
//! overwritten channel (shared memory scribbled) makes one, so the run stops naming it rather
//! than act on it.
//! Whether workload W can tell a part that cannot be its own (it has
//! `bool valid_part(const std::uint64_t* words, std::size_t n) const`); others are trusted.
template <class W, class = void>
struct ValidatesParts : std::false_type {};
template <class W>
struct ValidatesParts<W, std::void_t<decltype(std::declval<const W&>().valid_part(nullptr, std::size_t{}))>>
    : std::true_type {};

[[noreturn]] inline void malformed_message(const Message& in, const std::string& why) {
  throw std::runtime_error("a malformed message (type " + std::to_string(static_cast<int>(in.type)) + ", txn " +
                           std::to_string(in.txn_id) + ", from site " + std::to_string(in.source) + "): " + why +
                           "; its channel was overwritten?");
}

//! The coordinator's side: fragments out, votes in, the decision logged and sent. Logged in
//! group commit: early lock release on, its locks go once the decision record is appended
//! (InstanceWorker::finish_commit); off, they wait for it to be durable. Phase 2 waits for
//! that either way (send_commit is called from the acknowledgement).
class TwoPhaseCoordinator {
 public:
  //! One attempt of distributed transaction `txn`: `parts` (one per instance; `self` is this
  //! instance's, whose words are `local_words`) executed under `ctx`. On commit, `committed`
  //! holds the decision record and the participants that wait for phase 2 (send_commit).
  // One-shot 2PC: our part under no-wait locks, then the fragments out, the votes in (occ,
  // several participants: a validate round), then the decision.
  template <class Site>
  TxnResult attempt(Site& site, std::uint64_t txn, const std::vector<TxnPart>& parts, std::size_t self,
                    const std::vector<std::uint64_t>& local_words, TxnContext& ctx, std::vector<Row*>& rows,
                    CommitRecord& committed) {
    current_ = txn;
    if (TxnHistory* history = ctx.history()) history->begin(txn);  // its parts share the id
    votes_pending_ = 0;
    remote_abort_ = false;
    prepared_participants_.clear();
    held_.clear();
    revalidate_.clear();
    const auto scheme = site.cc().distributed();
    // Our own part first, its locks (occ: its write set) taken before any fragment goes out:
    // they are then held at every participant's vote (see the serialization point above).
    TxnResult local = site.workload().execute_part(local_words.data(), local_words.size(), rows, ctx, scheme,
                                                   site.stats().checksum);
    if (local.committed && !scheme.lock_writes(ctx, local.reason)) {
      ctx.abort();
      local.committed = false;
    }
    if (!local.committed) {
      current_ = 0;
      return local;
    }
    FragmentFlags flags;
    std::size_t remote = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) remote += (i != self && !parts[i].empty()) ? 1 : 0;
    flags.shared = remote > 1;
    {
      ComponentScope sending(ctx.clock(), Component::communication);
      for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i == self || parts[i].empty()) continue;
        out_.type = MessageType::fragment;
        out_.txn_id = current_;
        const auto& words = parts[i].words;
        flags.update = site.workload().part_updates(words.data(), words.size());
        encode_fragment(flags, words, out_);
        // The fragment goes to the worker owning the part's site (endpoint = site).
        site.send(parts[i].site, out_);
        ++votes_pending_;
        ++site.stats().fragments_sent;
      }
      wait_for_votes(site);
      if (!remote_abort_ && !revalidate_.empty()) {
        // occ, several participants: every write lock is held now; their reads again.
        for (std::uint32_t participant : revalidate_) {
          out_.type = MessageType::validate;
          out_.txn_id = current_;
          out_.payload.clear();
          site.send(participant, out_);
          ++votes_pending_;
          ++site.stats().validations_sent;
        }
        revalidating_ = true;
        wait_for_votes(site);
        revalidating_ = false;
      }
    }
    // occ: our own reads, once every participant has voted (and validated).
    if (!remote_abort_ && !scheme.validate(ctx, local.reason)) {
      ctx.abort();
      local.committed = false;
    }
    // The read-only parts that kept their reads let them go whatever the outcome: they wrote
    // nothing, so they need not wait for the decision to be durable.
    for (std::uint32_t participant : held_) send_decision(site, participant, current_, local.committed && !remote_abort_);
    const bool commit = local.committed && !remote_abort_;
    if (!commit) {
      // Presumed abort: nothing is logged, the decision goes out at once.
      for (std::uint32_t participant : prepared_participants_) send_decision(site, participant, current_, false);
      if (local.committed) ctx.abort();
      current_ = 0;
      return local.committed ? TxnResult::abort(AbortReason::remote_abort) : local;
    }
    committed.txn = current_;
    committed.notify = prepared_participants_;  // phase 2 goes out once the decision is durable
    LogWriter* const log = site.log();
    if (log != nullptr && (!prepared_participants_.empty() || !ctx.redo().empty())) {
      // The coordinator's decision record: the participant instances, then its own redo.
      ComponentScope logging(ctx.clock(), Component::logging);
      decision_instances_.clear();
      for (std::uint32_t participant : prepared_participants_) decision_instances_.push_back(site.instance_of(participant));
      committed.lsn = log->append(LogRecordType::decision_commit, current_,
                                  static_cast<std::uint32_t>(decision_instances_.size()), ctx.columns(),
                                  decision_instances_.data(), 4 * decision_instances_.size(), ctx.redo().data(),
                                  ctx.redo().size(),
                                  !prepared_participants_.empty() && site.pipeline().flushes_on_demand());
    }
    current_ = 0;
    return TxnResult::commit();
  }

  //! Counts a participant's vote on the transaction in flight, or its answer to a validate
  //! request (`backlog`: the worker's held back messages, for the message of the broken
  //! invariant a stray vote is).
  void on_vote(const Message& in, std::size_t backlog) {
    if (!(in.txn_id == current_ && votes_pending_ > 0 && in.payload.size() == 1)) {
      malformed_message(in, "a vote for no transaction in flight: current " + std::to_string(current_) + ", pending " +
                                std::to_string(votes_pending_) + ", last " + std::to_string(last_voted_) +
                                ", backlog " + std::to_string(backlog) + ", payload " +
                                std::to_string(in.payload.size()) + " bytes");
    }
    if ((in.payload[0] & ~(kVoteValueMask | kVoteHeld | kVoteRevalidate)) != 0 ||
        (in.payload[0] & kVoteValueMask) > kVoteReadOnly) {
      malformed_message(in, "vote byte " + std::to_string(in.payload[0]) + " is no vote");
    }
    last_voted_ = in.txn_id;
    --votes_pending_;
    const std::uint8_t vote = in.payload[0] & kVoteValueMask;
    if (vote == kVoteAbort) remote_abort_ = true;
    if (revalidating_) {
      // A read-only part is done once it answered (whatever it answered); an updater stays
      // prepared until the decision.
      held_.erase(std::remove(held_.begin(), held_.end(), in.source), held_.end());
      return;
    }
    if (vote == kVoteCommit) prepared_participants_.push_back(in.source);
    if (in.payload[0] & kVoteHeld) held_.push_back(in.source);
    if (in.payload[0] & kVoteRevalidate) revalidate_.push_back(in.source);
  }

  //! Phase 2 of committed transaction `txn`, once its decision is durable: commit to each of
  //! `participants`.
  template <class Site>
  void send_commit(Site& site, const std::vector<std::uint32_t>& participants, std::uint64_t txn) {
    for (std::uint32_t participant : participants) send_decision(site, participant, txn, true);
  }

 private:
  // Serves whatever arrives until every vote asked for is in.
  template <class Site>
  void wait_for_votes(Site& site) {
    while (votes_pending_ > 0) {
      if (!site.serve_one()) {
        site.check_failed();
        site.idle();  // spins a moment, then sleeps on the doorbell
      }
    }
  }

  template <class Site>
  void send_decision(Site& site, std::uint32_t participant, std::uint64_t txn, bool commit) {
    out_.type = MessageType::decision;
    out_.txn_id = txn;
    out_.payload.assign(1, commit ? 1 : 0);
    site.send(participant, out_);
    ++site.stats().decisions_sent;
  }

  Message out_;
  std::uint64_t current_ = 0, last_voted_ = 0;
  std::uint32_t votes_pending_ = 0;
  bool remote_abort_ = false, revalidating_ = false;
  // The prepared updaters; the read-only parts that kept their reads (a decision lets them
  // go); the occ parts to send a validate request once every vote is in.
  std::vector<std::uint32_t> prepared_participants_, held_, revalidate_, decision_instances_;
};

//! The participant's side: fragments executed and prepared, votes, decisions applied. Logged
//! in group commit, with early lock release on or off: a commit vote only once its prepare
//! record is durable, locks kept until the decision, released once commit_prepared is
//! appended. Early lock release on (or cc none): a read-only vote only once what the part may
//! have read is durable (the read-only rule).
class TwoPhaseParticipant {
 public:
  //! Executes a fragment of another worker's transaction and votes; a prepared updater's
  //! vote waits in the pipeline for its prepare record in group commit mode.
  template <class Site>
  void on_fragment(Site& site, const Message& in) {
    FragmentFlags flags;
    std::vector<std::uint64_t> keys;
    if (!decode_fragment(in, flags, keys)) malformed_message(in, "a fragment payload of " + std::to_string(in.payload.size()) + " bytes");
    using W = std::decay_t<decltype(site.workload())>;
    bool valid = keys.size() <= site.workload().max_part_words();
    if constexpr (ValidatesParts<W>::value) valid = valid && site.workload().valid_part(keys.data(), keys.size());
    if (!valid) malformed_message(in, "a fragment of " + std::to_string(keys.size()) + " words that cannot be this instance's");
    std::unique_ptr<TxnContext> ctx = site.new_context();
    ctx->begin(0);
    if (TxnHistory* history = ctx->history()) history->begin(in.txn_id);
    ctx->set_clock(site.clock());
    std::vector<Row*> rows;
    std::uint64_t checksum = 0;
    const auto scheme = site.cc().distributed();
    TxnResult result = site.workload().execute_part(keys.data(), keys.size(), rows, *ctx, scheme, checksum);
    if (result.committed && !scheme.validate(*ctx, result.reason)) {
      ctx->abort();  // occ: phase 1's pre-commit (write set locked, reads validated) failed
      result.committed = false;
    }
    // Several participants: reads are kept until every participant holds its locks (see the
    // serialization point above).
    const bool revalidate = result.committed && flags.shared && scheme.reads_to_validate(*ctx);
    const bool hold = flags.shared && (revalidate || decltype(scheme)::kInPlace);
    std::uint8_t vote;
    if (!result.committed) {
      vote = kVoteAbort;  // access already undid and released
      site.recycle(std::move(ctx));
    } else if (!flags.update) {
      vote = kVoteReadOnly;
      if (hold) {
        vote |= kVoteHeld | (revalidate ? kVoteRevalidate : 0);
        prepared_.emplace(in.txn_id, Prepared{std::move(ctx), false});
      } else {
        ctx->commit();  // release now, drop out of phase 2
        site.recycle(std::move(ctx));
      }
      // The read-only rule: the vote waits until what this part may have read is durable.
      const std::uint64_t depends = site.pipeline().read_dependency();
      if (depends != 0) {
        vote_when_durable(site, depends, in, vote);
        ++site.stats().read_only_vote_waits;
        return;
      }
    } else {
      std::uint64_t lsn = 0;
      LogWriter* const log = site.log();
      if (log != nullptr) {
        // The prepare record with this part's redo; in group commit mode the vote waits for
        // it to be durable (pipelined: this worker goes on meanwhile).
        ComponentScope logging(ctx->clock(), Component::logging);
        lsn = log->append(LogRecordType::prepare, in.txn_id, site.instance_of(in.source), ctx->columns(),
                          ctx->redo().data(), ctx->redo().size(), nullptr, 0, site.pipeline().flushes_on_demand());
      }
      prepared_.emplace(in.txn_id, Prepared{std::move(ctx), true});
      vote = kVoteCommit | (revalidate ? kVoteRevalidate : 0);
      if (site.pipeline().must_wait(lsn)) {
        vote_when_durable(site, lsn, in, vote);
        return;
      }
    }
    send_vote(site, in.source, in.txn_id, vote);
  }

  //! Validates a kept part's reads again (occ, several participants) and answers with a vote:
  //! a read-only part is then done, either way; an updater stays prepared for the decision.
  template <class Site>
  void on_validate(Site& site, const Message& in) {
    auto it = prepared_.find(in.txn_id);
    if (it == prepared_.end()) malformed_message(in, "a validate request for no kept fragment");
    TxnContext& ctx = *it->second.ctx;
    AbortReason reason{};
    const bool valid = site.cc().distributed().validate(ctx, reason);
    std::uint8_t vote = valid ? kVoteCommit : kVoteAbort;
    if (!it->second.prepared) {
      if (valid) {
        ctx.commit();
        vote = kVoteReadOnly;
      } else {
        ctx.abort();
      }
      site.recycle(std::move(it->second.ctx));
      prepared_.erase(it);
    }
    send_vote(site, in.source, in.txn_id, vote);
  }

  //! Applies the coordinator's decision to a prepared fragment.
  template <class Site>
  void on_decision(Site& site, const Message& in) {
    auto it = prepared_.find(in.txn_id);
    if (it == prepared_.end() || in.payload.size() != 1 || in.payload[0] > 1) {
      malformed_message(in, "a decision for no prepared fragment (or no decision: " + std::to_string(in.payload.size()) +
                                " bytes)");
    }
    TxnContext& ctx = *it->second.ctx;
    ctx.set_clock(site.clock());  // the worker's clock now, not when it prepared
    LogWriter* const log = site.log();
    if (log != nullptr && it->second.prepared) {  // a kept read-only part logged nothing
      // Not forced: until it is durable, recovery asks the coordinator's log.
      ComponentScope logging(ctx.clock(), Component::logging);
      log->append(in.payload[0] ? LogRecordType::commit_prepared : LogRecordType::abort_prepared, in.txn_id, 0, 0,
                  nullptr, 0);
    }
    if (in.payload[0]) {
      ctx.commit();
    } else {
      ctx.abort();
    }
    site.recycle(std::move(it->second.ctx));
    prepared_.erase(it);
  }

  //! Sends `vote` on `txn` to its coordinator `to`.
  template <class Site>
  void send_vote(Site& site, std::uint32_t to, std::uint64_t txn, std::uint8_t vote) {
    Message reply;
    reply.type = MessageType::vote;
    reply.txn_id = txn;
    reply.payload.assign(1, vote);
    site.send(to, reply);
  }

  //! Whether every prepared (or kept) fragment has had its decision.
  bool idle() const { return prepared_.empty(); }

 private:
  // Sends `vote` on the fragment `in` once the log is durable up to `lsn` (the worker goes on).
  template <class Site>
  static void vote_when_durable(Site& site, std::uint64_t lsn, const Message& in, std::uint8_t vote) {
    PendingCommit wait;
    wait.lsn = lsn;
    wait.txn = in.txn_id;
    wait.vote = true;
    wait.vote_value = vote;
    wait.vote_to = in.source;
    site.pipeline().push(std::move(wait), site.clock());  // flushed on demand: the next serve_one() with no message votes
  }

  // A part waiting for the coordinator: a prepared updater (its prepare record logged), or a
  // read-only part that kept its reads.
  struct Prepared {
    std::unique_ptr<TxnContext> ctx;
    bool prepared = true;
  };
  std::unordered_map<std::uint64_t, Prepared> prepared_;
};

}  // namespace islands
