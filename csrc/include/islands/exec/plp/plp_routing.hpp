#pragma once
#include <atomic>
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "islands/exec/plp/plp_drain_watch.hpp"
#include "islands/exec/plp/plp_ownership_check.hpp"
#include "islands/exec/routing_table.hpp"
#include "islands/exec/routing_unit.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/exec/txn_part.hpp"

namespace islands {

//! What one re-partitioning did (PlpRouting::apply).
struct PlpRepartition {
  std::size_t units_moved = 0;  //!< units whose owner changed
  double pause_ns = 0;          //!< from freezing the units to handing them over (their pause)
  bool completed = true;        //!< false: the instance stopped (or failed) before the drain ended
  //! The drain watchdog's dump (PlpDrainWatch) when a round waited past its threshold, with
  //! how the drain ended; empty normally.
  std::string stall;
};

//! The routing indirection of a PLP instance (engine.execution = plp): routing keys map to
//! units (sub-ranges of a site's keys), units to the workers that own them, through a table
//! the workers read at every transaction attempt and that changes while transactions run.
//!
//! Re-partitioning (apply): units move between workers in two publications.
//!  1. Freeze: a table where each moving unit has no owner (kFrozen). A transaction needing a
//!     frozen unit does not start (its coordinator serves and retries); transactions on other
//!     units go on. Nothing already routed is forwarded or cancelled: the old owner finishes it.
//!  2. Drain, in two rounds. Every worker acknowledges a frozen version once nothing it
//!     coordinates or holds was routed under an older table (no attempt in progress, no action
//!     held for a decision, no commit of its own waiting in the log's pipeline with its locks).
//!     One round is not enough: an owner may acknowledge while an action cut under the old
//!     table is still on its way to it (its coordinator was preempted between the cut and the
//!     send); it then runs and holds that action after its acknowledgement, and the
//!     coordinator's decision may still be queued for it when the coordinator acknowledges.
//!     So the frozen table is published again and acknowledged again: by the end of the first
//!     round every coordinator has decided (and sent the decisions of) everything it routed
//!     under an older table, so every such action is held at its owner or done; an owner
//!     acknowledges the second round only once it holds none of them, i.e. once it has
//!     applied their decisions (released their locks, undone their writes and index entries).
//!     After the second round no action on a moving unit is in flight and no lock is held on
//!     its rows.
//!  3. Hand over: the target table. The old owner's writes happen before its acknowledgement
//!     (release), which happens before the publication the new owner reads (acquire). Its
//!     structures (the unit's rows, lock words and index root) are the new owner's from then on.
//! So no transaction is lost or applied twice: every action runs exactly once, at the owner
//! of its unit under the one table its attempt was split with.
//!
//! Versions stay allocated for the instance's life (a worker may still read an old one); they
//! are small (a word per unit). One re-partitioning at a time (a mutex).
//!
//! Watchdog (watch(), exec/plp/plp_drain_watch.hpp): a drain round waiting longer than its
//! threshold (1 s) dumps what it waits on, once per re-partitioning: into the result
//! (PlpRepartition::stall; the run's first in totals().stall) and, the run's first, on stderr.
class PlpRouting : public RoutingTable {
 public:
  //! `workers` workers owning `sites` sites, worker i site i: units of site i to worker i.
  PlpRouting(std::size_t workers, std::size_t sites) : workers_(workers), acks_(new Ack[workers]), watch_(workers) {
    std::vector<std::uint32_t> owner(sites * kUnitsPerSite);
    for (std::size_t u = 0; u < owner.size(); ++u) owner[u] = static_cast<std::uint32_t>(u / kUnitsPerSite % workers);
    publish(std::move(owner));
    for (std::size_t w = 0; w < workers; ++w) acks_[w].version.store(1, std::memory_order_relaxed);
  }
  //! `workers` workers, unit u first owned by `owner[u]` (each below `workers`; a placement of
  //! exec/plp/plp_placement.hpp). Throws std::invalid_argument on an owner out of range.
  PlpRouting(std::size_t workers, std::vector<std::uint32_t> owner)
      : workers_(workers), acks_(new Ack[workers]), watch_(workers) {
    for (std::size_t u = 0; u < owner.size(); ++u) {
      if (owner[u] >= workers) {
        throw std::invalid_argument("plp routing: unit " + std::to_string(u) + " on worker " + std::to_string(owner[u]) +
                                    " of " + std::to_string(workers));
      }
    }
    publish(std::move(owner));
    for (std::size_t w = 0; w < workers; ++w) acks_[w].version.store(1, std::memory_order_relaxed);
  }

  //! Number of workers.
  std::size_t workers() const noexcept { return workers_; }
  //! Number of units.
  std::size_t units() const noexcept { return current()->owner.size(); }
  //! Number of tables published so far (3 per re-partitioning that moved something, + 1).
  std::uint64_t versions() const noexcept { return current()->version; }

  //! Worker `worker`: nothing it coordinates or holds was routed before `version` (release).
  void acknowledge(std::size_t worker, std::uint64_t version) noexcept {
    acks_[worker].version.store(version, std::memory_order_release);
  }
  //! The last version worker `worker` acknowledged.
  std::uint64_t acknowledged(std::size_t worker) const noexcept {
    return acks_[worker].version.load(std::memory_order_acquire);
  }

  //! Moves every unit u to worker target[u] (target names every unit, each owner < workers()),
  //! freezing only the units that move, waiting for their drain, then handing them over (see
  //! the class comment). `abandon()` is polled while waiting: true once no worker will ever
  //! route again (the instance stopped or failed); then the target is published undrained,
  //! which is safe only because nothing runs any more, and `completed` is false.
  //! Throws std::invalid_argument on a malformed target.
  template <class Abandon>
  PlpRepartition apply(const std::vector<std::uint32_t>& target, Abandon&& abandon) {
    std::lock_guard<std::mutex> lock(mutex_);
    const PlpRoute& now = *current();
    if (target.size() != now.owner.size()) {
      throw std::invalid_argument("plp routing: a target of " + std::to_string(target.size()) + " units for " +
                                  std::to_string(now.owner.size()));
    }
    PlpRepartition done;
    std::vector<std::uint32_t> frozen = now.owner;
    for (std::size_t u = 0; u < target.size(); ++u) {
      if (target[u] >= workers_) {
        throw std::invalid_argument("plp routing: unit " + std::to_string(u) + " to worker " +
                                    std::to_string(target[u]) + " of " + std::to_string(workers_));
      }
      if (target[u] != now.owner[u]) {
        frozen[u] = PlpRoute::kFrozen;
        ++done.units_moved;
      }
    }
    if (done.units_moved == 0) return done;
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t first = publish(frozen);
    done.completed = skip_drain_ || (drain(first, 1, done, abandon) && drain(publish(std::move(frozen)), 2, done, abandon));
    if (check_ != nullptr) {
      for (std::size_t u = 0; u < target.size(); ++u) {
        if (target[u] != now.owner[u]) check_->handed_over(u);
      }
    }
    publish(target);
    done.pause_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    ++totals_.repartitions;
    totals_.units_moved += done.units_moved;
    totals_.pause_ns_total += done.pause_ns;
    if (done.pause_ns > totals_.pause_ns_max) totals_.pause_ns_max = done.pause_ns;
    if (!done.completed) ++totals_.incomplete;
    if (!done.stall.empty()) {
      char ended[96];
      std::snprintf(ended, sizeof ended, "drain %s after %.3f s in all\n",
                    done.completed ? "completed" : "abandoned (the instance stopped)", done.pause_ns * 1e-9);
      done.stall += watch_.since_dump() + ended;
      if (totals_.stalls++ == 0) totals_.stall = done.stall;
    }
    return done;
  }

  //! Test mode: tells `check` of every hand-over (before the new owner can see it).
  void set_ownership_check(PlpOwnershipCheck* check) noexcept { check_ = check; }
  //! Test only (engine.test_skip_drain): hand units over without draining them (broken on
  //! purpose: the ownership check must catch it).
  void set_skip_drain(bool skip) noexcept { skip_drain_ = skip; }

  //! The drain watchdog: workers report to it (PlpDrainWatch), the instance describes them.
  PlpDrainWatch& watch() noexcept { return watch_; }

  //! What every apply() so far did, summed.
  RepartitionStats totals() {
    std::lock_guard<std::mutex> lock(mutex_);
    return totals_;
  }

 private:
  struct alignas(64) Ack {
    std::atomic<std::uint64_t> version{0};
  };

  std::uint64_t publish(std::vector<std::uint32_t> owner) {
    auto route = std::make_unique<PlpRoute>();
    route->version = versions_.size() + 1;
    route->owner = std::move(owner);
    set_current(route.get());
    versions_.push_back(std::move(route));
    return versions_.size();
  }

  // Waits until every worker acknowledged `version` (true) or abandon() (false). Round
  // `round`'s wait past the watchdog's threshold is dumped into done.stall (the
  // re-partitioning's first such round; the run's first also on stderr).
  template <class Abandon>
  bool drain(std::uint64_t version, int round, PlpRepartition& done, Abandon& abandon) {
    const auto start = std::chrono::steady_clock::now();
    auto last = start;   // this thread's last look
    double longest = 0;  // its longest time between two looks (a whole process paused shows here)
    for (unsigned spins = 0;; ++spins) {
      bool all = true;
      for (std::size_t w = 0; w < workers_ && all; ++w) all = acknowledged(w) >= version;
      if (all) return true;
      if (abandon()) return false;
      if (spins < 64) {
        std::this_thread::yield();
        continue;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
      const auto now = std::chrono::steady_clock::now();
      longest = std::max(longest, std::chrono::duration<double>(now - last).count());
      last = now;
      if (spins % 64 == 0 && done.stall.empty()) {
        const double waited = std::chrono::duration<double>(now - start).count();
        if (waited >= watch_.threshold_s()) {
          done.stall = watch_.dump(version, round, done.units_moved, waited, longest,
                                   [this](std::size_t w) { return acknowledged(w); });
          if (totals_.stalls == 0) {
            std::fputs(done.stall.c_str(), stderr);
            std::fflush(stderr);
          }
        }
      }
    }
  }

  std::size_t workers_;
  std::unique_ptr<Ack[]> acks_;
  PlpDrainWatch watch_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<PlpRoute>> versions_;
  RepartitionStats totals_;
  PlpOwnershipCheck* check_ = nullptr;
  bool skip_drain_ = false;
};

//! Cuts `txn` into one part per worker by the owners in `route` (the workload's locate gives
//! each operation's unit; `first_unit` is the instance's first); a part goes to the site of
//! its first operation (units of `tables` tables routed apart: exec/routing_unit.hpp).
//! With tables routed apart (engine.plp_units = per_table) one transaction's operations on
//! two tables of one key go to two owners when those tables' units are placed apart. False
//! when an operation's unit is frozen (parts then unspecified).
template <class Workload>
bool route_split(const Workload& workload, const typename Workload::Txn& txn, const PlpRoute& route,
                 std::uint64_t first_unit, std::vector<TxnPart>& parts, std::uint64_t tables = 1) {
  for (TxnPart& part : parts) part.clear();
  const std::vector<std::uint64_t>& words = txn.words;
  for (std::size_t at = 0; at < words.size();) {
    const std::pair<std::size_t, std::uint64_t> op = workload.locate(words.data(), words.size(), at);
    const std::uint32_t owner = route.owner[op.second - first_unit];
    if (owner == PlpRoute::kFrozen) return false;
    TxnPart& part = parts[owner];
    if (part.empty()) part.site = static_cast<std::uint32_t>(site_of_unit(op.second, tables));
    part.words.insert(part.words.end(), words.begin() + static_cast<std::ptrdiff_t>(at),
                      words.begin() + static_cast<std::ptrdiff_t>(at + op.first));
    at += op.first;
  }
  return true;
}

}  // namespace islands
