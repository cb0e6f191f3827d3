#pragma once
#include <cmath>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <queue>
#include <type_traits>
#include <utility>
#include <vector>

#include "islands/common/cycle_clock.hpp"
#include "islands/common/random.hpp"
#include "islands/exec/client_board.hpp"
#include "islands/exec/client_queue.hpp"
#include "islands/exec/client_request_draw.hpp"
#include "islands/exec/request_owner.hpp"
#include "islands/exec/routing_table.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/settings/driver_config.hpp"

namespace islands {

//! One worker's share of the client layer (driver.clients = closed or open; internal to
//! exec/worker_loop.hpp). The clients are not threads: each client's code runs on the
//! worker that answered its last request (closed) or on every worker in turn for its share of
//! the arrivals (open), and what it costs is timed (ClientStats::client_ticks). Each request is
//! drawn over the whole database and pushed to the queue of the instance that owns its home
//! (ClientBoard); the instance's workers take requests from their own queue only, so every
//! transaction runs at its home. Closed: client c starts on the worker whose global site is
//! c mod total_sites; after its answer it waits driver.think_us, then submits again. Open:
//! every worker draws Poisson arrivals at offered_rate / total_sites; an arrival is stamped
//! with when it was due (not when the worker got to it), so latency includes the lag.
//! PLP (engine.execution = plp, `plp` given): the board has a queue per worker, a request goes
//! to the queue of the worker owning its home unit in the routing table as it stands
//! (exec/request_owner.hpp; the site's worker while that unit is being moved), and the
//! worker re-routes (forward) one whose unit moved on before it ran.
//! Otherwise (the board has stashes) a request for the submitting worker's own instance waits in
//! that worker's stash; a worker takes from its instance's queue first (requests from other
//! instances), then from its stash, then, idle, steals from a sibling's stash (ClientStats::stolen).
class ClientDriver {
 public:
  //! The clients' side of the worker of global site `site`, which takes requests from queue
  //! `own_queue` of `board` (its instance's; under PLP its own) and, where the board has stashes,
  //! from stash `worker` (its index in the instance); `plp`: a PLP instance's routing table.
  ClientDriver(const DriverConfig& driver, ClientBoard* board, const std::vector<std::uint32_t>& instance_of_site,
               std::uint32_t site, ClientStats& stats, std::uint32_t own_queue, std::uint32_t worker = 0,
               const RoutingTable* plp = nullptr)
      : driver_(driver),
        board_(board),
        own_(board != nullptr ? &board->queue(own_queue) : nullptr),
        stash_(board != nullptr && plp == nullptr && worker < board->stashes() ? &board->stash(worker) : nullptr),
        own_queue_(own_queue),
        worker_(worker),
        plp_(plp),
        instance_of_site_(instance_of_site),
        site_(site),
        total_sites_(static_cast<std::uint32_t>(instance_of_site.size())),
        stats_(stats),
        rng_(driver.seed * 0xd1b54a32d192ed03ULL + site + 0x5bd1e995) {}

  //! Whether a client layer submits this run's transactions (false: every worker is its own
  //! client, driver.clients workers or instance_wide).
  bool active() const { return routes_requests(driver_.clients); }
  //! How many clients a closed run has.
  static std::uint32_t clients_of(const DriverConfig& driver, std::size_t total_sites) {
    return driver.client_count > 0 ? driver.client_count : static_cast<std::uint32_t>(4 * total_sites);
  }
  //! Slots of each worker's stash: as many as its instance's queue, at most 65,536 (an open
  //! loop's arrivals past them go to the instance's queue).
  static std::size_t stash_capacity(const DriverConfig& driver, std::size_t total_sites) {
    return std::min<std::size_t>(queue_capacity(driver, total_sites), std::size_t{1} << 16);
  }
  //! Slots each instance's queue needs: every closed client at once (so a closed client is
  //! never refused), or a second's worth of
  //! open arrivals (at least 4096, at most 2^20; arrivals past it are refused and counted).
  static std::size_t queue_capacity(const DriverConfig& driver, std::size_t total_sites) {
    if (driver.clients == ClientKind::closed) {
      // Small, so that the slots stay in the cores' caches: a ring of 4096 slots (each request
      // in a cold line) halved a 1ISL closed loop's throughput. A push never drops a closed
      // client whatever the size (ClientQueue::push waits for a slot a consumer still holds).
      return ClientQueue::capacity_for(2 * clients_of(driver, total_sites));
    }
    const double second = std::min(driver.offered_rate, double{1 << 20});
    return ClientQueue::capacity_for(std::max<std::size_t>(4096, static_cast<std::size_t>(second)));
  }

  //! Once per loop turn (between two transactions), from the warm-up on: the first turn
  //! submits this worker's initial clients (closed) or arms its arrivals (open); every turn
  //! submits what has come due, and in the measured window samples, once per `sample_ticks`,
  //! its queue's length and its own account: the requests it holds (taken, not forwarded, not
  //! answered) beside `pipelined`, those of them waiting in its commit pipeline.
  template <class Workload>
  void turn(const Workload& workload, std::uint64_t now, bool measuring, std::uint64_t sample_ticks, double ns_per_tick,
            std::size_t pipelined) {
    if (!started_) start(workload, now, ns_per_tick);
    if (measuring) {  // before this turn's submissions: what the worker finds waiting
      if (next_sample_ == 0) next_sample_ = now;
      if (now >= next_sample_) {
        stats_.queue_lengths.push_back(stash_ != nullptr ? board_->waiting() : own_->length());
        stats_.outstanding.push_back(stats_.taken - stats_.forwarded - stats_.answered);
        stats_.pipelined.push_back(pipelined);
        next_sample_ += sample_ticks;
      }
    }
    std::uint64_t tick = now;
    if (driver_.clients == ClientKind::open) {
      for (std::uint32_t n = 0; now >= next_arrival_ && n < 256; ++n) {
        tick = submit(workload, kOpenArrival, next_arrival_, measuring, tick);
        next_arrival_ += next_gap();
      }
    } else {
      while (!thinking_.empty() && thinking_.top().first <= now) {
        const std::uint32_t client = thinking_.top().second;
        thinking_.pop();
        tick = submit(workload, client, now, measuring, tick);
      }
    }
  }

  //! Takes the next request of this worker's instance into `request`; false (the worker is
  //! idle from now, counted in the measured window) when none waits.
  bool take(ClientRequest& request, std::uint64_t now, bool measuring) {
    if (!own_->pop(request) && (stash_ == nullptr || (!stash_->pop(request) && !steal(request)))) {
      if (idle_since_ == 0) idle_since_ = now;
      return false;
    }
    if (idle_since_ != 0) {
      if (measuring) stats_.idle_ticks += now - idle_since_;
      idle_since_ = 0;
    }
    ++stats_.taken;
    return true;
  }

  //! The request of `client` was decided (committed and acknowledged, or rolled back): its
  //! client thinks, then submits its next (closed); nothing for an open arrival.
  template <class Workload>
  void answered(const Workload& workload, std::uint32_t client, std::uint64_t now, bool measuring) {
    ++stats_.answered;
    if (client == kOpenArrival) return;
    if (driver_.think_us > 0) {
      thinking_.emplace(now + static_cast<std::uint64_t>(driver_.think_us * 1e3 / ns_per_tick_), client);
    } else {
      submit(workload, client, now, measuring, now);
    }
  }

  //! PLP: hands `request`, taken here, to the queue of worker `owner`, which owns its home
  //! unit now; false (nothing done) when that queue is full.
  bool forward(const ClientRequest& request, std::uint32_t owner) {
    if (!board_->queue(owner).push(request)) return false;
    ++stats_.forwarded;
    return true;
  }

  //! The measured window starts: idle time counts from now.
  void start_window(std::uint64_t now) {
    if (idle_since_ != 0) idle_since_ = now;
    next_sample_ = 0;
  }

 private:
  template <class Workload>
  void start(const Workload& workload, std::uint64_t now, double ns_per_tick) {
    started_ = true;
    ns_per_tick_ = ns_per_tick;
    if (driver_.clients == ClientKind::open) {
      rate_per_tick_ = driver_.offered_rate / total_sites_ * ns_per_tick * 1e-9;
      next_arrival_ = now + next_gap();
      return;
    }
    const std::uint32_t clients = clients_of(driver_, total_sites_);
    for (std::uint32_t c = site_; c < clients; c += total_sites_) submit(workload, c, now, false, now);
  }

  // The queue that serves `request`: its home instance's, or under PLP its home unit's owner's
  // (the site's worker while that unit is being moved: the worker waits, then forwards it).
  template <class Workload>
  std::uint32_t queue_of(const Workload& workload, const ClientRequest& request) {
    if (plp_ == nullptr) return instance_of_site_[request.site];
    thread_local typename Workload::Txn scratch;  // a workload without home_unit draws the transaction
    const std::uint32_t owner = request_owner(workload, request, *plp_->current(), 0, scratch);
    return owner != PlpRoute::kFrozen ? owner : request.site % board_->instances();
  }

  // An idle worker's last resort: the oldest request in a sibling's stash (the next sibling
  // first), counted in stolen.
  bool steal(ClientRequest& request) {
    const std::uint32_t n = board_->stashes();
    for (std::uint32_t i = 1; i < n; ++i) {
      if (board_->stash((worker_ + i) % n).pop(request)) {
        ++stats_.stolen;
        return true;
      }
    }
    return false;
  }

  // An exponential gap (in ticks) of this worker's share of the arrival rate.
  std::uint64_t next_gap() {
    return static_cast<std::uint64_t>(-std::log1p(-rng_.unit()) / rate_per_tick_) + 1;
  }

  // Draws and pushes one request stamped `submitted`; `now` is the clock when the client's
  // work began (one clock read per request: the one after it, returned for the next).
  template <class Workload>
  std::uint64_t submit(const Workload& workload, std::uint32_t client, std::uint64_t submitted, bool measuring,
                       std::uint64_t now) {
    const ClientHome home = draw_client_home(workload, rng_, total_sites_);
    ClientRequest request;
    request.client = client;
    request.site = home.site;
    request.home = home.home;
    request.seed = rng_.next();
    request.submitted = submitted;
    ++stats_.submitted;
    const std::uint32_t queue = queue_of(workload, request);
    if (!(queue == own_queue_ && stash_ != nullptr && stash_->push(request)) && !board_->queue(queue).push(request)) {
      ++stats_.refused;
    }
    if (!measuring) return now;
    const std::uint64_t done = CycleClock::now();
    stats_.client_ticks += done - now;
    return done;
  }

  const DriverConfig& driver_;
  ClientBoard* board_;
  ClientQueue* own_;        // the queue this worker takes from
  ClientQueue* stash_;      // this worker's stash (null: PLP, or no stashes)
  std::uint32_t own_queue_;  // own_'s index on the board
  std::uint32_t worker_;     // this worker's index in its instance
  const RoutingTable* plp_;  // a PLP instance's routing table (null: a deployment's)
  const std::vector<std::uint32_t>& instance_of_site_;
  std::uint32_t site_;
  std::uint32_t total_sites_;
  ClientStats& stats_;
  Random rng_;
  bool started_ = false;
  double ns_per_tick_ = 1;
  double rate_per_tick_ = 0;
  std::uint64_t next_arrival_ = 0;
  std::uint64_t next_sample_ = 0;
  std::uint64_t idle_since_ = 0;
  // closed clients thinking on this worker: (when they submit again, client), soonest first
  std::priority_queue<std::pair<std::uint64_t, std::uint32_t>, std::vector<std::pair<std::uint64_t, std::uint32_t>>,
                      std::greater<>>
      thinking_;
};

}  // namespace islands
