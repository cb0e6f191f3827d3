#pragma once
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "islands/common/abort_reason.hpp"
#include "islands/common/check.hpp"
#include "islands/common/cpu_affinity.hpp"
#include "islands/common/cycle_clock.hpp"
#include "islands/common/random.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/exec/client_driver.hpp"
#include "islands/exec/commit_pipeline.hpp"
#include "islands/exec/context_pool.hpp"
#include "islands/exec/instance_config.hpp"
#include "islands/exec/plp/plp_action.hpp"
#include "islands/exec/plp/plp_bus.hpp"
#include "islands/exec/plp/plp_handoff.hpp"
#include "islands/exec/plp/plp_routing.hpp"
#include "islands/exec/plp/plp_stages.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/exec/system_access.hpp"
#include "islands/exec/worker_loop.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/txn/txn_context.hpp"
#include "islands/exec/action_io.hpp"
#include "islands/exec/txn_part.hpp"

namespace islands {

//! One worker of a PLP instance (engine.execution = plp; internal to instance/instance_impl.hpp),
//! the WorkerLoop policy (exec/worker_loop.hpp) of partitions owned by workers inside the instance.
//! It owns partition `local` (its site: the workload's range of routing keys) and is the
//! only thread that touches it; it is also a client that draws transactions and coordinates
//! them.
//!
//! Actions. A transaction is cut, by the workload's own split, into one action per partition
//! it touches (the words of its operations there). The coordinator posts each remote action
//! in a PlpAction of its own and sends the owner a message pointing at it over the bus's
//! in-process SPSC rings (PlpBus); it runs the action on its own partition itself, in place,
//! meanwhile. A transaction whose operations are all on the coordinator's partition (the
//! common case) runs there and then, with no message at all.
//!
//! Rendezvous. The coordinator then waits until every action has published its outcome
//! (serving the actions and decisions others send it meanwhile, so that two coordinators
//! waiting on each other's partitions both make progress). That join is where actions hand
//! data back: an owner returns its redo (and a failure's reason) in the action.
//!
//! Stages (exec/plp/plp_stages.hpp). Where a workload's operations consume data that other
//! operations of the transaction produce (TPC-C NewOrder's lines step, the stock steps' text),
//! a transaction spread over several partitions is cut into actions per (partition, stage):
//! stage 0's actions run and return what they produced at a first rendezvous, stage 1's run
//! with those records as their input (remote or local: after re-partitioning the consumer's
//! partition need not be the coordinator's), a second rendezvous, then the one decision as
//! below. Every action of an attempt carries the routing version the attempt was cut under; a
//! partition with actions in both stages runs them in the one context it holds for the
//! decision, so a failure of its second action undoes its first as well. Workloads without
//! consuming operations, and transactions on one partition, take the one-stage path.
//!
//! Locks. Each partition's locks are the lock words of its own rows, which only its owner
//! touches: no lock manager, no lock shared between partitions. They are taken no-wait (the
//! scheme's distributed(): an owner holding a lock for a transaction waiting at another
//! partition cannot wait for it, it must go on serving); a conflict aborts the attempt, which
//! the coordinator retries after a backoff, as a 2PL worker does. Locks are held until the
//! coordinator's decision (strict two-phase locking over the partitions).
//!
//! Commit, inside the instance and in one phase: the coordinator knows every action's outcome
//! from the rendezvous, so there is no vote and no prepare record. All done: one commit record
//! in the instance's one log, with the redo of every action (recovery replays it as any
//! commit record); then each owner is told to commit (locks released) and the coordinator's
//! own part commits. Any failed: the owners whose action succeeded are told to abort. With
//! the log in group commit the release follows the shared-everything rules (CommitPipeline):
//! early lock release on, the owners release once the record is appended and the
//! acknowledgement waits for the flush; off, the releases wait in the pipeline with the
//! coordinator's own locks until the record is durable.
//!
//! Hand-off (engine.plp_handoff = W > 0; exec/plp/plp_handoff.hpp). A drawn transaction whose home
//! unit (its first operation's) another, unparked worker owns is handed to that owner whole:
//! its words go into a slot of the drawer's window and one message points the owner at it.
//! The owner queues it and coordinates it as if it had drawn it (routing, actions, stages,
//! retries with their backoff, the commit record, the monitor, the commit counted in its own
//! statistics), handed transactions before its own draw (at most its peers' windows in a row),
//! then tells the drawer it is finished (handoff_done), and the slot is free again. The drawer
//! does not wait: it keeps at most W handed transactions unfinished, drawing and coordinating
//! its own meanwhile; a transaction to hand with the window full waits, drawn, while its
//! drawer serves. So a unit moved to another worker moves its transactions' load, not a round
//! trip of actions per transaction. The owner routes a handed transaction when it starts it,
//! by the table then current, as any other: the hand-off is only a choice of coordinator, and
//! if the home moved on meanwhile the owner still coordinates it (correct anywhere, one hop
//! more for that transaction; forwarding could chase a unit). Nothing handed and unstarted is
//! routed, so the drain sees no more than before. A handed transaction's latency runs from its
//! drawing to its commit at the owner (what its client waits, the queue included).
//!
//! Routing (exec/plp/plp_routing.hpp): each attempt is split by the instance's routing table as
//! it stands when the attempt starts (keys to units, units to owners); a transaction needing
//! a unit being moved waits for the hand-over before it starts. Between attempts the worker
//! acknowledges a new table once nothing it coordinates or holds was routed by an older one
//! (observe_routing), which is how a re-partitioning drains the units it moves.
//!
//! System structures (engine.system_structures, exec/system_access.hpp): every transaction
//! holds the system-state lock shared and is linked in the active list, its socket's part
//! or the one centralized part. The other places a PLP worker touches something shared by
//! all partitions are marked "centralized:" below (the log, the history map in test mode,
//! the instance's phase and failure flags).
template <class Workload, class CC>
class PlpWorker final : public WorkerLoop<PlpWorker<Workload, CC>, Workload, CC> {
  using Loop = WorkerLoop<PlpWorker<Workload, CC>, Workload, CC>;
  using Txn = typename Workload::Txn;
  using Loop::inst_, Loop::local_, Loop::gid_, Loop::stats_, Loop::ctx_, Loop::log_, Loop::committed_,
      Loop::pipeline_, Loop::system_, Loop::clients_, Loop::request_, Loop::rows_, Loop::remote_parts_,
      Loop::local_words_;
  using Loop::check_failed, Loop::clock, Loop::drain_durable, Loop::new_context, Loop::next_txn_id, Loop::recycle,
      Loop::serve, Loop::serve_one, Loop::stopping;

 public:
  //! The scheme an action runs under: the instance's, no-wait (see the class comment).
  using ActionCC = decltype(std::declval<const CC&>().distributed());
  //! Whether the workload's operations may exchange data (then spread transactions may need two stages).
  static constexpr bool kStaged = HasStages<Workload>::value;

  //! Worker `local` of `instance`, on `bus`; `finished` counts the workers that stopped
  //! drawing transactions (each serves until all have).
  PlpWorker(InstanceImpl<Workload, CC>& instance, std::size_t local, PlpBus& bus, std::atomic<std::size_t>& finished)
      : Loop(instance, local, static_cast<std::uint32_t>(local), instance.plp_routing_.get()),
        bus_(bus),
        routing_(*instance.plp_routing_),
        finished_(finished),
        action_cc_(instance.cc_.distributed()),
        parts_(bus.workers()),
        later_(bus.workers()),
        actions_(bus.workers()),
        held_(bus.workers()),
        handoff_(bus.workers() > 1 ? instance.config_.run.engine.plp_handoff : 0),
        window_(handoff_, static_cast<std::uint32_t>(local)),
        inbox_((bus.workers() - 1) * handoff_, (bus.workers() - 1) * handoff_) {
    route_ = routing_.current();  // seen_ stays null: the first observe_routing acknowledges
    set_message_delay(instance.config_);
    tables_ = routing_tables_of(instance.workload_);  // engine.plp_units: 1, or the tables routed apart
    first_unit_ = std::uint64_t{instance.first_site_} * kUnitsPerSite * tables_;
    const std::vector<int>& cpus = instance.config_.run.driver.cpus;
    pinned_cpus_.assign(1, cpus[local]);
    shares_cpu_always_ = std::count(cpus.begin(), cpus.end(), cpus[local]) > 1;
  }

 private:
  friend Loop;

  // WorkerLoop's hooks: draws and coordinates transactions until the run stops, serving the
  // actions sent to its partition throughout; then serves until every worker has stopped.
  void started() { routing_.watch().started(local_); }  // the drain watchdog reads /proc for this thread

  void barred() {
    serve();
    note(PlpDrainWatch::Wait::phase_change);
  }

  // The next transaction to coordinate: a client's request routed to this worker (driver.clients;
  // a parked worker serves its queue too: the requests are for the units it owns, and in a
  // pinned run its thread shares the unparked workers' CPUs meanwhile), a transaction handed
  // to it (engine.plp_handoff), or its own client's draw; nullptr when there is none now.
  Txn* next(Txn& drawn, Random& rng, TxnLookahead<Workload>&, bool measured_before) {
    const bool parked = inst_.plp_parked_[local_].load(std::memory_order_relaxed);
    if (parked || away_) follow_park(parked);  // pinned: its thread onto the unparked workers' CPUs, or back
    handed_ = nullptr;
    if (clients_.active()) return this->take_request(measured_before) && place_request(drawn) ? &drawn : nullptr;
    handed_ = handoff_ > 0 ? take_handed(parked) : nullptr;  // engine.plp_handoff
    if (parked && handed_ == nullptr) {  // its core taken away (PlpControl): it draws nothing
      system_.release();
      note(PlpDrainWatch::Wait::parked);
      parked_wait();
      return nullptr;
    }
    if (handed_ == nullptr && !draw(drawn, rng)) {  // handed off, or waiting for a slot to
      system_.release();
      if (drawn_waiting_) wait_for_slot();
      return nullptr;
    }
    routed_ = false;
    return handed_ != nullptr ? &handed_->txn : &drawn;
  }

  // Latency from here: a handed transaction's from its drawing (never after `start`).
  std::uint64_t drawn_at(std::uint64_t start) const {
    return handed_ != nullptr && handed_->drawn < start ? handed_->drawn : start;
  }

  // Before each attempt: cut by the routing table as it stands; a unit it needs being moved,
  // it waits for the hand-over. A retry re-routes (serve() may have acknowledged a newer
  // table): a request whose home unit moved meanwhile goes to its new owner (nothing of it
  // is held: it aborted).
  AttemptStep prepare(const Txn& txn, unsigned attempt) {
    if (!route(txn)) {
      if (stopping()) return AttemptStep::give_up;
      serve();
      note(PlpDrainWatch::Wait::frozen_unit);
      wait_frozen();
      return AttemptStep::again;
    }
    if (clients_.active() && attempt > 0 && forward_if_away(txn)) return AttemptStep::forwarded;
    return AttemptStep::go;
  }

  TxnResult attempt() { return attempt_cut(); }

  // Decided: a handed transaction not committed is finished (its drawer gets the slot back); a
  // request's home checked.
  void decided(const Txn& txn, bool committed, bool rolled_back) {
    if (handed_ != nullptr && !committed) finish_handed(*handed_);
    if (clients_.active() && (committed || rolled_back)) check_home(txn);
  }

  // Committed: engine.plp_monitor (exec/plp/plp_monitor.hpp) records it.
  void committing(const Txn& txn) {
    if (inst_.plp_monitor_ && inst_.plp_monitor_->recording()) {
      inst_.plp_monitor_->record(local_, inst_.workload_, txn.words, *route_, first_unit_, remote_parts_ == 0);
    }
  }

  // A committed handed transaction is finished once its commit is counted or pipelined.
  void finished() {
    if (handed_ != nullptr) finish_handed(*handed_);
  }

  // A worker of the client layer with no request: yields its CPU where it shares it.
  void rest() {
    if (shares_cpu()) {
      std::this_thread::yield();
    } else {
      cpu_relax();
    }
  }

  // Between attempts and while serving: a new routing table acknowledged once drained.
  void observe() { observe_routing(); }

  void pipeline_full() { note(PlpDrainWatch::Wait::log_pipeline); }

  // Early lock release: the owners release their actions of a commit whose record is appended.
  void release_early(PendingCommit& done) {
    release(done.notify, done.txn);
    done.notify.clear();
  }

  // An acknowledged commit: the owners still holding its actions release them.
  void notify_commit(const std::vector<std::uint32_t>& owners, std::uint64_t txn) { release(owners, txn); }

  // One load when nothing waits (two: the routing table, observe()). Called between attempts only.
  bool may_have_message() { return bus_.may_have_message(local_); }

  bool handle_message() {
    PlpMessage in;
    if (!bus_.receive(local_, in)) return false;
    dispatch(in);
    return true;
  }

 private:
  using HandedTxn = PlpHandedTxn<typename Workload::Txn>;

  // A decision this partition waits for: the context of an action it ran and holds.
  struct Held {
    std::uint64_t txn;
    std::unique_ptr<TxnContext> ctx;
    std::uint64_t route;  // the routing version its coordinator split it under
    std::vector<std::uint32_t> units;  // test mode: the units it ran on (its decision claims them again)
  };

  // The next transaction of this worker's client (flattened, as attempt_local).
  [[gnu::flatten]] void generate(typename Workload::Txn& txn, Random& rng) { inst_.workload_.generate(txn, rng, gid_); }

  // driver.clients: the request take_request took (request_), drawn into `txn` (generate_at
  // around its home) and cut by the routing table as it stands. True when this worker runs
  // it: it owns the request's home unit under that cut (or the owner's queue is full). False
  // when it was forwarded to its home unit's owner (the unit moved after its client routed
  // it), or when the run stops while that unit is being moved (the request is then abandoned).
  bool place_request(Txn& txn) {
    generate_request(inst_.workload_, txn, request_);
    routed_ = false;
    if (parts_.size() == 1 || txn.words.empty()) return true;  // one partition: all is this worker's
    for (;;) {
      if (route(txn)) {
        keep_cut_ = true;  // the first attempt runs by this cut
        if (!forward_if_away(txn)) return true;
        keep_cut_ = false;
        return false;
      }
      // Its home (or another unit it needs) is being moved: wait for the hand-over.
      if (stopping()) return false;
      serve();
      note(PlpDrainWatch::Wait::frozen_unit);
      wait_frozen();
    }
  }

  // A request whose home unit another worker owns under route_ (the table `txn` was just cut
  // by) is forwarded to that owner's queue (true); false when this worker owns it, or the
  // owner's queue is full (this worker runs it: correct anywhere, one hop more).
  bool forward_if_away(const typename Workload::Txn& txn) {
    if (parts_.size() == 1 || txn.words.empty()) return false;
    const std::uint32_t owner = handoff_home(inst_.workload_, txn.words, *route_, first_unit_);
    return owner != local_ && owner != PlpRoute::kFrozen && clients_.forward(request_, owner);
  }

  // A request decided here: counted in ran_away when another worker owned its home unit under
  // the table its deciding attempt was cut by (the routing test reads it: it stays 0 unless a
  // queue was full).
  void check_home(const typename Workload::Txn& txn) {
    if (parts_.size() == 1 || txn.words.empty()) return;
    if (handoff_home(inst_.workload_, txn.words, *route_, first_unit_) != local_) ++stats_.clients.ran_away;
  }

  // engine.plp_handoff: the handed transaction to coordinate now, or nullptr (the own draw's
  // turn; see PlpHandoffInbox). A parked worker, whose own client draws nothing, coordinates
  // every transaction handed to it before it was parked (none is handed to it after).
  HandedTxn* take_handed(bool parked) {
    if (parked) return inbox_.empty() ? nullptr : inbox_.pop();
    return inbox_.next(drawn_waiting_);
  }

  // The own client's next transaction into `drawn` (or the one still waiting for a slot): true
  // when this worker coordinates it (its home is here, frozen, or owned by a parked worker;
  // or hand-off is off); false when it was handed to its home's owner, or waits for a free
  // slot (drawn_waiting_; the caller then serves, wait_for_slot).
  bool draw(typename Workload::Txn& drawn, Random& rng) {
    if (handoff_ == 0) {
      generate(drawn, rng);
      note_draw(drawn);
      return true;
    }
    const bool waited = drawn_waiting_;
    if (!waited) {
      generate(drawn, rng);
      note_draw(drawn);
    }
    drawn_waiting_ = false;
    if (drawn.words.empty()) return true;
    const std::uint32_t home = handoff_home(inst_.workload_, drawn.words, *routing_.current(), first_unit_);
    if (home == local_ || home == PlpRoute::kFrozen || inst_.plp_parked_[home].load(std::memory_order_relaxed)) {
      return true;
    }
    if (!waited) drawn_at_ = CycleClock::now();  // its client's latency starts here (read only when handed)
    if (window_.full()) {
      if (!waited) wait_since_ = std::chrono::steady_clock::now();
      drawn_waiting_ = true;
      return false;
    }
    hand_off(drawn, home);
    return false;
  }

  // engine.plp_monitor: the monitor counts the own client's draw by its home unit
  // (PlpMonitor::record_draw: the cost model's drawing-worker term).
  void note_draw(const typename Workload::Txn& drawn) {
    if (inst_.plp_monitor_) inst_.plp_monitor_->record_draw(local_, inst_.workload_, drawn.words, first_unit_);
  }

  // Hands `drawn` to worker `home` in a free slot (one message); `drawn` gets the slot's old
  // buffers back for the next draw.
  void hand_off(typename Workload::Txn& drawn, std::uint32_t home) {
    HandedTxn* slot = window_.acquire();
    std::swap(slot->txn, drawn);
    slot->drawn = drawn_at_;
    PlpMessage m;
    m.kind = PlpMessage::handoff;
    m.source = static_cast<std::uint32_t>(local_);
    m.slot = slot;
    send(home, m);
    ++stats_.handoffs_sent;
  }

  // The own client waits for a slot (outside the system-state lock): serves one message, or
  // spins and then sleeps until one comes (a slot back, a transaction handed here).
  void wait_for_slot() {
    if (serve_one()) {
      wait_since_ = std::chrono::steady_clock::now();
      return;
    }
    check_failed();
    note(PlpDrainWatch::Wait::handoff_slot);
    idle(wait_since_, [this] { return !window_.full() || !inbox_.empty(); });
  }

  // A handed transaction this worker coordinated is finished (committed, rolled back or given
  // up): its drawer gets the slot back. The transaction is not read after this.
  void finish_handed(HandedTxn& handed) {
    ++stats_.handoffs_run;
    give_back(handed);
  }

  void give_back(HandedTxn& handed) {
    PlpMessage m;
    m.kind = PlpMessage::handoff_done;
    m.source = static_cast<std::uint32_t>(local_);
    m.slot = &handed;
    send(handed.drawer, m);
  }

  // At the stop: every handed transaction waiting here is dropped unstarted (not counted) and
  // given back, so that its drawer's window drains.
  void drop_handed() {
    while (!inbox_.empty()) {
      HandedTxn* handed = inbox_.pop();
      ++stats_.handoffs_dropped;
      give_back(*handed);
    }
  }

  // Before this worker counts itself finished: what was handed to it dropped, and its own
  // window drained (the owners finish or drop what it handed them), serving meanwhile; so no
  // slot of its is read after it stops, and no peer waits on it for one.
  void drain_handoffs() {
    auto since = std::chrono::steady_clock::now();
    for (;;) {
      drop_handed();
      if (window_.outstanding() == 0) return;
      observe_routing();
      if (serve_one()) {
        since = std::chrono::steady_clock::now();
      } else {
        if (inst_.failed_.load()) return;
        idle(since, [this] { return window_.outstanding() == 0 || !inbox_.empty(); });
      }
    }
  }

  // Cuts the transaction into its action per partition by the routing table as it stands
  // (again only when the table changed since the last cut); counts the partitions other than
  // this one it needs. False when a unit it needs is frozen (being moved).
  bool route(const typename Workload::Txn& txn) {
    if (parts_.size() == 1) {  // one partition: everything is this worker's
      local_words_ = &txn.words;
      remote_parts_ = 0;
      return true;
    }
    const PlpRoute* now = routing_.current();
    if (routed_ && (now == route_ || keep_cut_)) {
      // keep_cut_: a request's first attempt runs by the cut place_request checked its home
      // with (safe: no table was acknowledged since, see observe_routing).
      keep_cut_ = false;
      return true;
    }
    keep_cut_ = false;
    route_ = now;
    if constexpr (kStaged) {
      stages_ = stage_split(inst_.workload_, txn, *now, first_unit_, parts_, later_, tables_);
      routed_ = stages_ != 0;
    } else {
      routed_ = route_split(inst_.workload_, txn, *now, first_unit_, parts_, tables_);
    }
    if (!routed_) return false;
    local_words_ = &parts_[local_].words;
    remote_parts_ = 0;
    for (std::size_t p = 0; p < parts_.size(); ++p) remote_parts_ += p != local_ && !parts_[p].empty();
    if constexpr (kStaged) {  // stage 1 alone may reach another partition
      if (stages_ == 2) {
        for (std::size_t p = 0; p < later_.size(); ++p) remote_parts_ += p != local_ && !later_[p].empty();
      }
    }
    return true;
  }

  // A parked worker draws nothing and serves the actions sent to its units as any worker
  // does; with nothing to serve it waits as an idle worker waits (bus_.idle: in a pinned run,
  // whose CPUs it now shares, it sleeps at once, so the OS runs the workers it shares them
  // with), until a message, a transaction handed to it earlier, or its core given back.
  void parked_wait() {
    if (serve_one()) {
      idle_since_ = std::chrono::steady_clock::now();
      return;
    }
    check_failed();
    idle(idle_since_, [this] { return !inst_.plp_parked_[local_].load(std::memory_order_relaxed) || !inbox_.empty(); });
  }

  // A pinned run (driver.pin): a parked worker's thread may run on the CPUs of the unparked
  // workers and on no other (its core taken away: the OS shares theirs with it, as 002's
  // static configuration had a lost socket's threads run by the remaining cores); given back,
  // it runs on its own CPU again. Its own thread re-pins itself, here, when it sees its flag
  // change or, parked, the unparked workers change. Every worker parked: it stays where it is.
  // Unpinned, a parked worker only stops drawing.
  void follow_park(bool parked) {
    const DriverConfig& driver = inst_.config_.run.driver;
    if (!driver.pin) return;
    target_cpus_.clear();
    if (parked) {
      for (std::size_t w = 0; w < driver.cpus.size(); ++w) {
        if (!inst_.plp_parked_[w].load(std::memory_order_relaxed)) target_cpus_.push_back(driver.cpus[w]);
      }
      std::sort(target_cpus_.begin(), target_cpus_.end());
      target_cpus_.erase(std::unique(target_cpus_.begin(), target_cpus_.end()), target_cpus_.end());
    }
    if (target_cpus_.empty()) target_cpus_.push_back(driver.cpus[local_]);
    away_ = !(target_cpus_.size() == 1 && target_cpus_[0] == driver.cpus[local_]);
    if (target_cpus_ == pinned_cpus_) return;
    pin_current_thread_to(target_cpus_);
    pinned_cpus_ = target_cpus_;
  }

  // Whether this worker's CPU is shared with another worker's thread now: a pinned run with
  // several workers per CPU (engine.plp_workers_per_cpu), or with a worker parked (which runs
  // on the unparked workers' CPUs). Read only when it has nothing to do.
  bool shares_cpu() const {
    const DriverConfig& driver = inst_.config_.run.driver;
    if (!driver.pin) return false;
    if (shares_cpu_always_) return true;
    for (std::size_t w = 0; w < driver.cpus.size(); ++w) {
      if (inst_.plp_parked_[w].load(std::memory_order_relaxed)) return true;
    }
    return false;
  }

  // Whether another thread wants this worker's CPU: shared with a worker (shares_cpu), or
  // taken from it by the OS lately (preempted_lately: a busy process, another tenant). For the
  // waits that can last as long as a descheduled peer does (a unit being handed over, a full
  // queue), not for the rendezvous, whose spin before sleeping is measured to pay (PlpBus; on
  // a VM that preempts its workers now and then, sleeping at once there cost 0.1x).
  bool cpu_wanted() { return shares_cpu() || preempted_lately(); }

  // Whether the OS took this worker's CPU from it (an involuntary context switch) within the
  // last kContendedNs: another thread wants that CPU, so a waiter spinning there only holds
  // back whoever it waits for (or makes a busy process's slice its own wait) and a yield hands
  // the CPU over for a whole slice, while a sleeper on the bus is woken at once by the message
  // it waits for. At most one getrusage per kLookNs: read only while idle.
  bool preempted_lately() {
    const std::uint64_t now = CycleClock::now();
    if (now - looked_at_ < look_ticks_) return now < contended_until_;
    looked_at_ = now;
    rusage usage{};
    if (::getrusage(RUSAGE_THREAD, &usage) == 0 && usage.ru_nivcsw != involuntary_switches_) {
      if (involuntary_switches_ >= 0) contended_until_ = now + contended_ticks_;
      involuntary_switches_ = usage.ru_nivcsw;
    }
    return now < contended_until_;
  }

  // A unit this worker needs is being handed over (a re-partitioning): alone on its CPU it
  // yields and looks again (the hand-over is usually microseconds away); sharing it, it sleeps
  // on the bus until a message comes (the actions it serves meanwhile are what the drain may
  // wait for) or the bus's longest sleep passes, rather than handing its CPU to a busy process
  // for a slice with every message to it unanswered.
  void wait_frozen() {
    if (!cpu_wanted()) {
      std::this_thread::yield();
      return;
    }
    const PlpRoute* const before = routing_.current();
    idle(std::chrono::steady_clock::time_point{}, [this, before] { return routing_.current() != before; });
  }

  // Nothing to do: waits on the bus (PlpBus::idle), without spinning first where its CPU is shared.
  template <class Ready>
  void idle(std::chrono::steady_clock::time_point since, Ready&& ready) {
    bus_.idle(local_, since, std::forward<Ready>(ready), !shares_cpu());
  }

  // Test mode: this worker runs an action on the units of `words` (PlpOwnershipCheck); adds
  // them to `units` when given (a held action, whose decision claims them again).
  void claim(const std::uint64_t* words, std::size_t n, std::vector<std::uint32_t>* units = nullptr) {
    for (std::size_t at = 0; at < n;) {
      const std::pair<std::size_t, std::uint64_t> op = inst_.workload_.locate(words, n, at);
      const auto unit = static_cast<std::uint32_t>(op.second - first_unit_);
      inst_.plp_ownership_->touch(unit, static_cast<std::uint32_t>(local_));
      if (units != nullptr) units->push_back(unit);
      at += op.first;
    }
  }

  // Between attempts: acknowledges a new routing table once nothing this worker coordinates
  // or holds was routed by an older one (see PlpRouting). Its commits still waiting in the
  // log's pipeline hold locks: those appended before it saw the table must be durable and
  // acknowledged first (mark_lsn_: the log's end when it first saw it). Each look at a table
  // not yet acknowledged is told to the drain watchdog (PlpDrainWatch), with what blocks it.
  void observe_routing() {
    const PlpRoute* now = routing_.current();
    if (now == seen_) return;
    if (now != pending_) {
      pending_ = now;
      mark_lsn_ = log_ != nullptr ? log_->appended_lsn() : 0;
    }
    PlpDrainWatch::Look look;
    look.version = now->version;
    look.handed_out = window_.outstanding();
    look.handed_in = inbox_.size();
    for (std::size_t from = 0; from < held_.size(); ++from) {
      for (const Held& h : held_[from]) {
        ++look.held;
        if (h.route < now->version && look.blocker == PlpDrainWatch::Blocker::none) {
          look.blocker = PlpDrainWatch::Blocker::held_action;
          look.held_txn = h.txn;
          look.held_from = static_cast<std::uint32_t>(from);
          look.held_route = h.route;
        }
      }
    }
    if (look.blocker == PlpDrainWatch::Blocker::none && !pipeline_.empty() && log_->durable_lsn() < mark_lsn_) {
      look.blocker = PlpDrainWatch::Blocker::log_pipeline;
      look.durable_lsn = log_->durable_lsn();
      look.mark_lsn = mark_lsn_;
      log_->request_flush();  // a re-partitioning waits on it: not the end of a group delay
    }
    routing_.watch().looked(local_, look);
    if (look.blocker != PlpDrainWatch::Blocker::none) return;
    if (!pipeline_.empty()) drain_durable();  // every commit appended before the mark is durable: acknowledged now
    seen_ = now;
    routing_.acknowledge(local_, now->version);
  }

  // Where this worker is about to wait, for the drain watchdog (slow paths only).
  void note(PlpDrainWatch::Wait wait) noexcept { routing_.watch().note(local_, wait); }

  // One attempt of the transaction route() cut: on this partition alone, spread in one
  // stage, or (a workload whose operations exchange data) in two.
  [[gnu::always_inline]] TxnResult attempt_cut() {
    if (remote_parts_ == 0) return attempt_local();
    if constexpr (kStaged) {
      if (stages_ == 2) return attempt_staged();
    }
    return attempt_spread();
  }

  // A transaction on this worker's partition alone: run in place, no message (the common
  // case; flattened so that the workload's procedure is inlined whole, as in the
  // shared-everything worker).
  [[gnu::flatten]] TxnResult attempt_local() {
    const std::uint64_t txn = next_txn_id();
    if (TxnHistory* history = ctx_->history()) history->begin(txn);
    committed_.txn = txn;
    committed_.lsn = 0;
    const std::vector<std::uint64_t>& own = *local_words_;
    if (inst_.plp_ownership_) claim(own.data(), own.size());
    const TxnResult result = costed(own.data(), own.size(), [&] {
      return inst_.workload_.execute_part(own.data(), own.size(), rows_, *ctx_, action_cc_, stats_.checksum);
    });
    if (result.committed && log_ != nullptr && !ctx_->redo().empty()) log_commit(txn, false);
    return result;
  }

  // One attempt over several partitions: the actions out, the own part in place, the
  // rendezvous, the decision. On commit committed_ holds the commit record and the owners to
  // release.
  [[gnu::noinline]] TxnResult attempt_spread() {
    const std::uint64_t txn = next_txn_id();
    if (TxnHistory* history = ctx_->history()) history->begin(txn);  // every action shares the id
    remote_.clear();
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      if (p == local_ || parts_[p].empty()) continue;
      PlpAction& action = actions_[p];
      if constexpr (kStaged) {
        action.post_stage(parts_[p].words, nullptr, 0, false);  // one stage: no input, no output
      } else {
        action.post(parts_[p].words);
      }
      PlpMessage m;
      m.kind = PlpMessage::action;
      m.source = static_cast<std::uint32_t>(local_);
      m.txn = txn;
      m.target = &action;
      m.route = route_->version;
      send(p, m);
      ++stats_.fragments_sent;
      remote_.push_back(static_cast<std::uint32_t>(p));
    }
    const std::vector<std::uint64_t>& own = *local_words_;
    TxnResult result = TxnResult::commit();
    if (!own.empty()) {
      if (inst_.plp_ownership_) claim(own.data(), own.size());
      result = costed(own.data(), own.size(), [&] {
        return inst_.workload_.execute_part(own.data(), own.size(), rows_, *ctx_, action_cc_, stats_.checksum);
      });
    }
    committed_.txn = txn;
    // The rendezvous: every action's outcome (serving meanwhile).
    TxnResult failure = result;
    bool ok = result.committed;
    for (std::uint32_t p : remote_) {
      PlpAction& action = actions_[p];
      await(action);
      if (action.poll() != PlpAction::kDone && (ok || action.poll() == PlpAction::kRolledBack)) {
        failure = action.failure();  // a user rollback wins over an abort: it is not retried
        ok = false;
      }
    }
    if (!ok) {
      for (std::uint32_t p : remote_) {
        if (actions_[p].poll() == PlpAction::kDone) decide(p, txn, false);
      }
      if (result.committed) ctx_->abort();
      return failure;
    }
    log_commit(txn, true);
    committed_.notify.assign(remote_.begin(), remote_.end());
    return TxnResult::commit();
  }

  // The rendezvous with one action: waits for its outcome, serving meanwhile (so that two
  // coordinators waiting on each other's partitions both make progress).
  [[gnu::always_inline]] void await(PlpAction& action) {
    auto since = std::chrono::steady_clock::now();
    while (action.poll() == PlpAction::kPending) {
      if (serve_one()) {
        since = std::chrono::steady_clock::now();
      } else {
        check_failed();
        note(PlpDrainWatch::Wait::rendezvous);
        idle(since, [&action] { return action.poll() != PlpAction::kPending; });
      }
    }
  }

  // Runs words[0, n) in `ctx` with the rendezvous data `io` (a workload whose operations
  // exchange none takes no ActionIo).
  TxnResult execute(const std::uint64_t* words, std::size_t n, std::vector<Row*>& rows, TxnContext& ctx,
                    ActionIo* io) {
    return costed(words, n, [&] {
      if constexpr (kStaged) {
        return inst_.workload_.execute_part(words, n, rows, ctx, action_cc_, stats_.checksum, io);
      } else {
        (void)io;
        return inst_.workload_.execute_part(words, n, rows, ctx, action_cc_, stats_.checksum);
      }
    });
  }

  // Every action this worker runs, its own transaction's part or one it serves, goes through
  // here: `run` runs words[0, n), and the monitor (engine.plp_monitor) costs it with this
  // worker's own cycles (PlpMonitor::run_action).
  template <class Run>
  [[gnu::always_inline]] TxnResult costed(const std::uint64_t* words, std::size_t n, Run&& run) {
    if (inst_.plp_monitor_ == nullptr) return run();
    return inst_.plp_monitor_->run_action(local_, inst_.workload_, words, n, first_unit_, run);
  }

  // One attempt in two stages (exec/plp/plp_stages.hpp): stage 0's actions out and the own one in
  // place, a rendezvous gathering what they produced into input_, stage 1's actions with that
  // input, a second rendezvous, the decision. A partition in both stages runs both in one
  // context; its latest action's outcome says whether it holds anything (a failed action
  // undid its partition's earlier one too). On commit committed_ is filled as attempt_spread
  // fills it.
  [[gnu::noinline]] TxnResult attempt_staged() {
    const std::uint64_t txn = next_txn_id();
    if (TxnHistory* history = ctx_->history()) history->begin(txn);  // every action shares the id
    committed_.txn = txn;
    remote_.clear();
    input_.clear();
    bool local_holds = false, ok = true;
    TxnResult failure = TxnResult::commit();
    std::uint64_t produced = 0, consumed = 0;
    for (unsigned stage = 0; stage < 2 && ok; ++stage) {
      const std::vector<TxnPart>& parts = stage == 0 ? parts_ : later_;
      // Stage 0 produces into input_ (its own part directly, the others' after the
      // rendezvous); stage 1 reads it, unchanged until its outcomes are in.
      const std::uint64_t* in = stage == 0 ? nullptr : input_.data();
      const std::size_t in_n = stage == 0 ? 0 : input_.size();
      sent_.clear();
      for (std::size_t p = 0; p < parts.size(); ++p) {
        if (p == local_ || parts[p].empty()) continue;
        PlpAction& action = actions_[p];
        action.post_stage(parts[p].words, in, in_n, stage == 0);
        PlpMessage m;
        m.kind = PlpMessage::action;
        m.source = static_cast<std::uint32_t>(local_);
        m.txn = txn;
        m.target = &action;
        m.route = route_->version;  // both stages: the table the attempt was cut by
        send(p, m);
        ++stats_.fragments_sent;
        sent_.push_back(static_cast<std::uint32_t>(p));
        if (stage == 0 || parts_[p].empty()) remote_.push_back(static_cast<std::uint32_t>(p));
        if (stage == 1) ++stats_.stage1_actions_sent;
      }
      const std::vector<std::uint64_t>& own = parts[local_].words;
      if (!own.empty()) {
        if (inst_.plp_ownership_) claim(own.data(), own.size());
        ActionIo io{in, in_n, stage == 0 ? &input_ : nullptr};
        const TxnResult result = execute(own.data(), own.size(), rows_, *ctx_, &io);
        local_holds = result.committed;  // a failure undid the own stage-0 part as well
        if (!result.committed) {
          failure = result;
          ok = false;
        }
        produced += io.produced;
        consumed += io.consumed;
      }
      for (std::uint32_t p : sent_) {
        PlpAction& action = actions_[p];
        await(action);
        if (action.poll() != PlpAction::kDone) {
          if (ok || action.poll() == PlpAction::kRolledBack) failure = action.failure();  // a rollback wins
          ok = false;
          continue;
        }
        produced += action.produced;
        consumed += action.consumed;
        if (stage == 0) input_.insert(input_.end(), action.out.begin(), action.out.end());
      }
    }
    if (!ok) {
      for (std::uint32_t p : remote_) {
        if (actions_[p].poll() == PlpAction::kDone) decide(p, txn, false);
      }
      if (local_holds) ctx_->abort();
      return failure;
    }
    ++stats_.staged_commits;
    stats_.rendezvous_produced += produced;
    stats_.rendezvous_consumed += consumed;
    log_commit(txn, true);
    committed_.notify.assign(remote_.begin(), remote_.end());
    return TxnResult::commit();
  }

  // The transaction's one commit record, with its own redo and every action's (log on and
  // something written); committed_.lsn 0 when none.
  void log_commit(std::uint64_t txn, bool with_actions) {
    committed_.lsn = 0;
    if (log_ == nullptr) return;
    const unsigned char* redo = ctx_->redo().data();
    std::size_t bytes = ctx_->redo().size();
    if (with_actions) {
      redo_all_.assign(redo, redo + bytes);
      for (std::uint32_t p : remote_) redo_all_.insert(redo_all_.end(), actions_[p].redo.begin(), actions_[p].redo.end());
      redo = redo_all_.data();
      bytes = redo_all_.size();
    }
    if (bytes == 0) return;
    ComponentScope logging(ctx_->clock(), Component::logging);
    committed_.lsn = log_->append(LogRecordType::commit, txn, 0, ctx_->columns(), redo, bytes);
  }

  // Tells each owner in `owners` to commit its action of `txn`.
  void release(const std::vector<std::uint32_t>& owners, std::uint64_t txn) {
    for (std::uint32_t p : owners) decide(p, txn, true);
  }

  void decide(std::uint32_t owner, std::uint64_t txn, bool commit) {
    PlpMessage m;
    m.kind = PlpMessage::decision;
    m.source = static_cast<std::uint32_t>(local_);
    m.txn = txn;
    m.commit = commit ? 1 : 0;
    send(owner, m);
    ++stats_.decisions_sent;
  }

  // Queues `m` for worker `to`; while that queue is full, serves this worker's own (serving
  // never sends, so this never recurses). A receiver that does not drain (descheduled) leaves
  // its queue full: where this worker's CPU is wanted by another thread it then sleeps on its
  // own doorbell (woken by a message to it, or after the bus's longest sleep) instead of
  // spinning on; alone on its CPU it spins.
  void send(std::size_t to, const PlpMessage& m) {
    ++stats_.messages_sent;
    if (delay_ticks_ != 0) delay_crossing(to);
    while (!bus_.try_send(local_, to, m)) {
      PlpMessage in;
      if (bus_.receive(local_, in)) {
        dispatch(in);
      } else {
        check_failed();
        if (cpu_wanted()) {
          idle(std::chrono::steady_clock::time_point{}, [] { return false; });
        } else {
          cpu_relax();
        }
      }
    }
  }

  // Virtual topologies (InstanceConfig::message_delay_us with site_sockets): every message to
  // a worker of another socket is injected that delay, paid by the sender before it leaves
  // (the instance's workers share the real caches, so a socket crossing otherwise costs nothing).
  void set_message_delay(const InstanceConfig& config) {
    if (!(config.message_delay_us > 0) || config.site_sockets.empty()) return;
    delay_ticks_ = static_cast<std::uint64_t>(config.message_delay_us * 1000 / CycleClock::ns_per_tick());
    const std::uint32_t first = config.first_site();
    crosses_socket_.assign(bus_.workers(), false);
    for (std::size_t w = 0; w < bus_.workers(); ++w) {
      crosses_socket_[w] = config.site_sockets[first + w] != config.site_sockets[first + local_];
    }
  }
  void delay_crossing(std::size_t to) {
    if (!crosses_socket_[to]) return;
    ++stats_.messages_delayed;
    const std::uint64_t due = CycleClock::now() + delay_ticks_;
    while (CycleClock::now() < due) cpu_relax();
  }

  void dispatch(const PlpMessage& in) {
    ++stats_.messages_received;
    ISLANDS_CHECK(in.source < held_.size() && in.source != local_, "plp: a message from no other worker");
    if (in.kind == PlpMessage::action) {
      on_action(in);
    } else if (in.kind == PlpMessage::handoff) {  // coordinated from the main loop (take_handed)
      inbox_.push(static_cast<HandedTxn*>(in.slot));
    } else if (in.kind == PlpMessage::handoff_done) {
      window_.release(in.slot);
    } else {
      ISLANDS_CHECK(in.kind == PlpMessage::decision, "plp: an unknown message");
      on_decision(in);
    }
  }

  // Runs another coordinator's action on this partition, publishes its outcome and, when it
  // succeeded, holds its locks until the decision.
  void on_action(const PlpMessage& in) {
    PlpAction& action = *in.target;
    if constexpr (kStaged) {
      if (on_later_action(in, action)) return;  // its transaction's stage-0 action is held here
    }
    std::unique_ptr<TxnContext> ctx = new_context();
    ctx->begin(0);
    if (TxnHistory* history = ctx->history()) history->begin(in.txn);
    ctx->set_clock(clock());
    std::vector<std::uint32_t> units;
    if (inst_.plp_ownership_) claim(action.words, action.n, &units);
    ActionIo io;
    const TxnResult result = execute(action.words, action.n, action_rows_, *ctx, stage_io(action, io));
    if (!result.committed) {
      recycle(std::move(ctx));  // already undone and released
      action.reason = result.reason;
      action.publish(result.user_rollback ? PlpAction::kRolledBack : PlpAction::kAborted);
      bus_.notify(in.source);
      return;
    }
    if (log_ != nullptr) action.redo.assign(ctx->redo().begin(), ctx->redo().end());
    if constexpr (kStaged) {
      action.produced = io.produced;
      action.consumed = io.consumed;
    }
    ctx->set_clock(nullptr);
    held_[in.source].push_back({in.txn, std::move(ctx), in.route, std::move(units)});
    action.publish(PlpAction::kDone);
    bus_.notify(in.source);  // a coordinator asleep at the rendezvous
  }

  // A staged workload: the action's input and output as the coordinator posted them (a
  // one-stage action has neither); nullptr for a workload without stages.
  ActionIo* stage_io(PlpAction& action, ActionIo& io) {
    if constexpr (!kStaged) {
      (void)action;
      (void)io;
      return nullptr;
    } else {
      io = ActionIo{action.in, action.in_words, nullptr};
      if (action.wants_out) {
        action.out.clear();
        io.out = &action.out;
      }
      return &io;
    }
  }

  // A stage-1 action of a transaction whose stage-0 action this partition holds: run in that
  // action's context (its locks, undo and redo go on), so that the partition still holds one
  // context for the decision; a failure undoes both (execute_part aborts the context) and the
  // partition then holds nothing. The action returns the context's whole redo. False when
  // no action of the transaction is held here (a first action: on_action runs it afresh).
  bool on_later_action(const PlpMessage& in, PlpAction& action) {
    std::vector<Held>& held = held_[in.source];
    std::size_t i = held.size();
    while (i > 0 && held[i - 1].txn != in.txn) --i;
    if (i == 0) return false;
    Held& h = held[i - 1];
    ISLANDS_CHECK(h.route == in.route, "plp: the stages of one attempt were cut by different routing tables");
    TxnContext& ctx = *h.ctx;
    ctx.set_clock(clock());
    if (inst_.plp_ownership_) claim(action.words, action.n, &h.units);
    ActionIo io;
    const TxnResult result = execute(action.words, action.n, action_rows_, ctx, stage_io(action, io));
    ctx.set_clock(nullptr);
    if (!result.committed) {
      recycle(std::move(h.ctx));  // already undone and released, stage 0 with it
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(i - 1));
      action.reason = result.reason;
      action.publish(result.user_rollback ? PlpAction::kRolledBack : PlpAction::kAborted);
      bus_.notify(in.source);
      return true;
    }
    if (log_ != nullptr) action.redo.assign(ctx.redo().begin(), ctx.redo().end());
    action.produced = io.produced;
    action.consumed = io.consumed;
    action.publish(PlpAction::kDone);
    bus_.notify(in.source);
    return true;
  }

  // The coordinator's decision on an action this partition holds.
  void on_decision(const PlpMessage& in) {
    std::vector<Held>& held = held_[in.source];
    for (std::size_t i = 0; i < held.size(); ++i) {
      if (held[i].txn != in.txn) continue;
      std::unique_ptr<TxnContext> ctx = std::move(held[i].ctx);
      if (inst_.plp_ownership_) {  // releasing its locks or undoing its writes touches its units too
        for (const std::uint32_t unit : held[i].units) inst_.plp_ownership_->touch(unit, static_cast<std::uint32_t>(local_));
      }
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
      ctx->set_clock(clock());
      if (in.commit) {
        ctx->commit();
      } else {
        ctx->abort();
      }
      ctx->set_clock(nullptr);
      recycle(std::move(ctx));
      return;
    }
    ISLANDS_CHECK(false, "plp: a decision for no action this partition holds");
  }

  // The end of the shutdown, every pipelined commit acknowledged: serves until every worker
  // has stopped drawing (a peer's transaction may still need this partition).
  void leave() {
    note(PlpDrainWatch::Wait::shutdown);
    drain_handoffs();
    finished_.fetch_add(1, std::memory_order_acq_rel);
    for (std::size_t w = 0; w < bus_.workers(); ++w) {
      if (w != local_) bus_.notify(w);  // one asleep below looks at the count again
    }
    const auto all_done = [this] { return finished_.load(std::memory_order_acquire) >= bus_.workers(); };
    auto since = std::chrono::steady_clock::now();
    while (!all_done()) {
      observe_routing();
      if (serve_one()) {
        since = std::chrono::steady_clock::now();
      } else {
        if (inst_.failed_.load()) return;
        idle(since, all_done);
      }
      drop_handed();  // a peer that had not seen the stop yet
    }
    while (serve_one()) {
    }
    ISLANDS_CHECK(inbox_.empty() && window_.outstanding() == 0, "plp hand-off: transactions left handed at the stop");
    for (const std::vector<Held>& held : held_) {
      ISLANDS_CHECK(held.empty(), "plp: actions left without a decision");
    }
  }

  PlpBus& bus_;
  PlpRouting& routing_;
  std::atomic<std::size_t>& finished_;
  ActionCC action_cc_;
  const PlpRoute* route_ = nullptr;    // the table the current transaction was cut by
  const PlpRoute* seen_ = nullptr;     // the last table acknowledged
  const PlpRoute* pending_ = nullptr;  // a newer table seen, not yet acknowledged
  std::uint64_t mark_lsn_ = 0;         // the log's end when pending_ was first seen
  std::uint64_t first_unit_ = 0;       // the instance's first routing unit
  std::uint64_t tables_ = 1;           // tables routed apart (engine.plp_units; 1: shared units)
  std::uint64_t delay_ticks_ = 0;      // injected per message to another socket (virtual topologies)
  std::vector<bool> crosses_socket_;   // per worker: on another socket than this one
  bool routed_ = false;                // parts_ hold the current transaction's cut by route_
  std::vector<TxnPart> parts_;                    // the current transaction's action per partition (stage 0)
  std::vector<TxnPart> later_;                    // its stage-1 actions, when stages_ is 2 (plp_stages.hpp)
  unsigned stages_ = 1;                           // the current transaction's stages
  std::vector<std::uint64_t> input_;              // stage 0's records: stage 1's input
  std::vector<std::uint32_t> sent_;               // partitions the current stage sent actions to
  std::vector<PlpAction> actions_;                // this coordinator's action at each partition
  std::vector<std::vector<Held>> held_;           // by coordinator: actions waiting for a decision
  std::vector<std::uint32_t> remote_;             // partitions the current attempt sent actions to
  std::vector<unsigned char> redo_all_;           // the commit record's redo
  std::vector<Row*> action_rows_;
  std::uint32_t handoff_;                         // engine.plp_handoff (0 with one worker: off)
  PlpHandoffWindow<typename Workload::Txn> window_;  // what this worker handed, unfinished
  PlpHandoffInbox<typename Workload::Txn> inbox_;    // what others handed to it, unstarted
  bool drawn_waiting_ = false;                    // the own draw waits for a free slot
  std::chrono::steady_clock::time_point idle_since_{};  // parked: when its last stretch without messages began
  bool away_ = false;                             // pinned away from its own CPU (parked: follow_park)
  bool shares_cpu_always_ = false;                // another worker is pinned to its CPU (plp_workers_per_cpu)
  // preempted_lately(): the thread's involuntary context switches when last read (-1: never),
  // when (cycle clock) they were read, and until when its CPU counts as wanted by another thread.
  long involuntary_switches_ = -1;
  std::uint64_t looked_at_ = 0, contended_until_ = 0;
  const std::uint64_t look_ticks_ = static_cast<std::uint64_t>(kLookNs / CycleClock::ns_per_tick());
  const std::uint64_t contended_ticks_ = static_cast<std::uint64_t>(kContendedNs / CycleClock::ns_per_tick());
  static constexpr double kLookNs = 100e3;        // at most one getrusage per 100 us of idling
  static constexpr double kContendedNs = 20e6;    // a preemption makes the CPU shared for 20 ms
  std::vector<int> pinned_cpus_, target_cpus_;    // where its thread may run now; follow_park's scratch
  std::uint64_t drawn_at_ = 0;                    // cycle clock of the own client's last draw
  std::chrono::steady_clock::time_point wait_since_{};  // when the own draw began to wait
  bool keep_cut_ = false;                         // route(): keep place_request's cut for the first attempt
  HandedTxn* handed_ = nullptr;                   // the handed transaction being coordinated (engine.plp_handoff)
};

}  // namespace islands
