// The drain watchdog of PLP re-partitioning (exec/plp/plp_drain_watch.hpp through
// exec/plp/plp_routing.hpp): fake workers acknowledge routing tables as PlpWorker does, one of
// them withholds its acknowledgement (it says it holds an older table's action, or it does
// not look at the table at all) until the dump has been written; the dump must name that
// worker, the version awaited, the round and what it said. A drain that nobody delays leaves
// no dump. The withholding ends when the dump asks the instance's description of the worker
// (set_describe), so the test waits for the dump itself, not for a time.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/exec/plp/plp_drain_watch.hpp"
#include "islands/exec/plp/plp_routing.hpp"

using namespace islands;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// How a fake worker treats a table newer than the one it acknowledged.
enum Mode : int {
  kAcknowledge = 0,  // at once
  kHold = 1,         // looks, says it holds txn 0xabc from worker 2 cut under version 1, until released
  kAway = 2,         // does not look at all until released (a thread that is not scheduled)
  kHoldRound2 = 3,   // acknowledges round 1, then holds as kHold from the round after
};

struct Fakes {
  explicit Fakes(std::size_t workers) : routing(workers, workers), modes(workers) {
    for (auto& m : modes) m.store(kAcknowledge);
    routing.watch().set_threshold_s(0.3);
    routing.watch().set_describe([this](std::size_t w) {
      release.store(true);  // the dump is being written: the withholding worker may go on
      return "fake worker " + std::to_string(w);
    });
    for (std::size_t w = 0; w < workers; ++w) threads.emplace_back([this, w] { run(w); });
  }
  ~Fakes() {
    stop.store(true);
    for (std::thread& t : threads) t.join();
  }

  void run(std::size_t w) {
    PlpDrainWatch& watch = routing.watch();
    watch.started(w);
    std::uint64_t acked = 1, first_seen = 0;
    while (!stop.load()) {
      const PlpRoute* now = routing.current();
      if (now->version > acked) {
        if (first_seen == 0) first_seen = now->version;
        const int mode = modes[w].load();
        const bool withhold = !release.load() && (mode == kHold || mode == kAway ||
                                                  (mode == kHoldRound2 && now->version > first_seen));
        if (withhold && mode == kAway) {
          pause();
          continue;
        }
        PlpDrainWatch::Look look;
        look.version = now->version;
        if (withhold) {
          look.blocker = PlpDrainWatch::Blocker::held_action;
          look.held = 1;
          look.held_txn = 0xabc;
          look.held_from = 2;
          look.held_route = 1;
          watch.looked(w, look);
          watch.note(w, PlpDrainWatch::Wait::rendezvous);
          pause();
          continue;
        }
        watch.looked(w, look);
        routing.acknowledge(w, now->version);
        acked = now->version;
        if (now->owner[0] != PlpRoute::kFrozen) first_seen = 0;  // a target: the next apply starts afresh
      }
      pause();
    }
  }
  static void pause() { std::this_thread::sleep_for(std::chrono::microseconds(50)); }

  // Moves unit 0 to the next worker: one re-partitioning.
  PlpRepartition move() {
    std::vector<std::uint32_t> target = routing.current()->owner;
    target[0] = static_cast<std::uint32_t>((target[0] + 1) % routing.workers());
    const auto start = std::chrono::steady_clock::now();
    // A watchdog that never dumps would leave the drain waiting: give up after a minute (fails below).
    return routing.apply(target, [start] { return std::chrono::steady_clock::now() - start > std::chrono::seconds(60); });
  }

  PlpRouting routing;
  std::vector<std::atomic<int>> modes;
  std::atomic<bool> release{false}, stop{false};
  std::vector<std::thread> threads;
};

void nothing_delayed_leaves_no_dump() {
  Fakes fakes(3);
  fakes.routing.watch().set_threshold_s(PlpDrainWatch::kDefaultThresholdS);
  for (int i = 0; i < 5; ++i) {
    const PlpRepartition r = fakes.move();
    CHECK(r.completed && r.units_moved == 1);
    CHECK(r.stall.empty());
  }
  CHECK(fakes.routing.totals().stalls == 0 && fakes.routing.totals().stall.empty());
}

void a_held_action_is_named() {
  Fakes fakes(3);
  fakes.modes[1].store(kHold);
  const PlpRepartition r = fakes.move();  // versions: 2 frozen (round 1), 3 frozen (round 2), 4 target
  CHECK(r.completed);
  CHECK(has(r.stall, "plp drain stall: waited"));
  CHECK(has(r.stall, "routing version 2 (round 1 of 2, 1 units frozen; the waiting thread's longest gap between two looks "));
  CHECK(has(r.stall, "worker 1: acknowledged 1, NOT 2;"));
  CHECK(has(r.stall, "holds an action of txn 0xabc from worker 2 cut under version 1"));
  CHECK(has(r.stall, "holds 1 actions"));
  CHECK(has(r.stall, "last wait rendezvous"));
  CHECK(has(r.stall, "fake worker 1"));  // the instance's description of it
  CHECK(has(r.stall, "thread "));        // and the kernel's
  CHECK(has(r.stall, "since the dump: worker 0 ran "));  // the kernel's times while the drain still waited
  CHECK(has(r.stall, "drain completed after"));
  CHECK(!has(r.stall, "worker 0: acknowledged 1, NOT"));  // a worker that acknowledged at once is not blamed
  const RepartitionStats totals = fakes.routing.totals();
  CHECK(totals.stalls == 1 && totals.stall == r.stall);
  // The next re-partitioning, undelayed, adds nothing; the run's first dump stays.
  fakes.modes[1].store(kAcknowledge);
  fakes.routing.watch().set_threshold_s(PlpDrainWatch::kDefaultThresholdS);
  const PlpRepartition again = fakes.move();
  CHECK(again.completed && again.stall.empty());
  CHECK(fakes.routing.totals().stalls == 1 && fakes.routing.totals().stall == r.stall);
}

void a_worker_that_never_looks_is_named() {
  Fakes fakes(2);
  fakes.modes[0].store(kAway);
  const PlpRepartition r = fakes.move();
  CHECK(r.completed);
  CHECK(has(r.stall, "worker 0: acknowledged 1, NOT 2; has not looked at version 2"));
  CHECK(!has(r.stall, "worker 1: acknowledged 1, NOT"));
}

void the_second_round_is_named() {
  Fakes fakes(2);
  fakes.modes[1].store(kHoldRound2);
  const PlpRepartition r = fakes.move();
  CHECK(r.completed);
  CHECK(has(r.stall, "routing version 3 (round 2 of 2"));
  CHECK(has(r.stall, "worker 1: acknowledged 2, NOT 3;"));
}

void an_abandoned_drain_says_so() {
  PlpRouting routing(2, 2);  // no worker ever acknowledges
  routing.watch().set_threshold_s(0.02);
  bool dumped = false;  // the instance is asked to describe a worker: the dump is being written
  routing.watch().set_describe([&dumped](std::size_t) {
    dumped = true;
    return std::string("fake");
  });
  std::vector<std::uint32_t> target = routing.current()->owner;
  target[0] = 1;
  const auto start = std::chrono::steady_clock::now();
  // gives up once the dump is written (or after a minute: fails below)
  const PlpRepartition r =
      routing.apply(target, [&] { return dumped || std::chrono::steady_clock::now() - start > std::chrono::seconds(60); });
  CHECK(!r.completed);
  CHECK(has(r.stall, "worker 0: acknowledged 1, NOT 2; has not looked at version 2"));
  CHECK(has(r.stall, "thread not started"));
  CHECK(has(r.stall, "drain abandoned (the instance stopped)"));
}

}  // namespace

int main() {
  nothing_delayed_leaves_no_dump();
  a_held_action_is_named();
  a_worker_that_never_looks_is_named();
  the_second_round_is_named();
  an_abandoned_drain_says_so();
  return test_summary("test_plp_drain_watch");
}
