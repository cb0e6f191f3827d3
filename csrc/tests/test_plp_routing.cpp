// PLP's routing table (exec/plp/plp_routing.hpp): units move between workers while simulated
// workers route "actions" by the table, hold them for a while (as an owner holds an action
// until its decision) and acknowledge new tables only when nothing they hold is older. The
// ownership check (exec/plp/plp_ownership_check.hpp) must never see two workers on one unit
// between hand-overs (and does when the drain is skipped); a no-op target publishes nothing; bad targets are refused; a drain that
// can never end is abandoned.
#include <atomic>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/exec/plp/plp_ownership_check.hpp"
#include "islands/exec/plp/plp_routing.hpp"

using namespace islands;

namespace {

void basics() {
  PlpRouting routing(2, 2);
  CHECK(routing.units() == 2 * kUnitsPerSite);
  CHECK(routing.versions() == 1);
  CHECK(routing.current()->owner[0] == 0 && routing.current()->owner[kUnitsPerSite] == 1);
  const auto never = [] { return false; };
  std::vector<std::uint32_t> same = routing.current()->owner;
  CHECK(routing.apply(same, never).units_moved == 0);
  CHECK(routing.versions() == 1);  // nothing moved: nothing published
  bool refused = false;
  try {
    routing.apply(std::vector<std::uint32_t>(3, 0), never);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  CHECK(refused);
  refused = false;
  std::vector<std::uint32_t> bad = same;
  bad[4] = 2;
  try {
    routing.apply(bad, never);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  CHECK(refused);
  // No worker ever acknowledges: the drain ends only by abandon, and says so.
  std::vector<std::uint32_t> target = same;
  target[3] = 1;
  int polls = 0;
  const PlpRepartition r = routing.apply(target, [&] { return ++polls > 5; });
  CHECK(!r.completed && r.units_moved == 1);
  CHECK(routing.current()->owner[3] == 1 && routing.versions() == 3);  // abandoned in the first round: frozen once, the target
  CHECK(routing.totals().incomplete == 1);
}

// `workers` threads each route actions to the units they own, hold each for a random number
// of steps, and acknowledge as PlpWorker does; the main thread moves random units `moves` times.
// Returns the violations the ownership check saw (0 expected unless `skip_drain`).
int moves_under_load(std::size_t workers, std::size_t moves, unsigned seed, bool skip_drain = false) {
  PlpRouting routing(workers, workers);
  PlpOwnershipCheck check(routing.units());
  routing.set_ownership_check(&check);
  routing.set_skip_drain(skip_drain);
  std::atomic<bool> stop{false};
  std::atomic<int> violations{0};
  std::atomic<std::uint64_t> actions{0};
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937_64 rng(seed * 131 + w);
      struct Held {
        std::size_t unit;
        std::uint64_t version;
        int steps;
      };
      std::vector<Held> held;
      const PlpRoute* seen = nullptr;  // acknowledges the table it first sees (it may start late)
      while (!stop.load(std::memory_order_relaxed)) {
        const PlpRoute* route = routing.current();
        const std::size_t unit = rng() % route->owner.size();
        if (route->owner[unit] == w) {
          try {
            check.touch(unit, static_cast<std::uint32_t>(w));
          } catch (const std::logic_error&) {
            violations.fetch_add(1);
          }
          held.push_back({unit, route->version, static_cast<int>(rng() % 50)});
          actions.fetch_add(1, std::memory_order_relaxed);
        }
        for (std::size_t i = 0; i < held.size();) {
          if (--held[i].steps <= 0) {
            try {
              check.touch(held[i].unit, static_cast<std::uint32_t>(w));  // its release still runs here
            } catch (const std::logic_error&) {
              violations.fetch_add(1);
            }
            held[i] = held.back();
            held.pop_back();
          } else {
            ++i;
          }
        }
        const PlpRoute* now = routing.current();
        if (now != seen) {
          bool old = false;
          for (const Held& h : held) old = old || h.version < now->version;
          if (!old) {
            seen = now;
            routing.acknowledge(w, now->version);
          }
        }
        if (rng() % 16 == 0) std::this_thread::yield();
      }
    });
  }
  std::mt19937_64 rng(seed);
  std::size_t moved = 0;
  const auto let_them_run = [&actions] {  // the workers act between two moves
    const std::uint64_t from = actions.load();
    while (actions.load() < from + 20) std::this_thread::yield();
  };
  for (std::size_t m = 0; m < moves; ++m) {
    let_them_run();
    std::vector<std::uint32_t> target = routing.current()->owner;
    for (int k = 0; k < 3; ++k) target[rng() % target.size()] = static_cast<std::uint32_t>(rng() % workers);
    const PlpRepartition r = routing.apply(target, [] { return false; });
    CHECK(r.completed);
    moved += r.units_moved;
    CHECK(routing.current()->owner == target);
  }
  stop.store(true);
  for (std::thread& t : threads) t.join();
  if (!skip_drain) CHECK(violations.load() == 0);
  CHECK(actions.load() > 0);
  CHECK(routing.totals().units_moved == moved);
  return violations.load();
}

}  // namespace

int main() {
  basics();
  for (unsigned seed = 1; seed <= 3; ++seed) {
    moves_under_load(2, 200, seed);
    moves_under_load(4, 100, seed);
  }
  // The broken mode (hand-over without the drain) is caught: old owners still run actions on
  // units the new owners already claimed.
  int caught = 0;
  for (unsigned seed = 1; seed <= 5; ++seed) caught += moves_under_load(2, 400, seed, true);
  CHECK(caught > 0);
  return test_summary("test_plp_routing");
}
