// PLP's in-process queues (exec/plp/plp_bus.hpp) and the action rendezvous (exec/plp/plp_action.hpp):
// every message delivered exactly once and in order per pair of workers, with every worker
// both sending and serving under randomized pauses; and coordinators that post actions to
// several owners and wait at the rendezvous (spinning, then asleep on the doorbell) for
// outcomes published at random moments.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/exec/plp/plp_action.hpp"
#include "islands/exec/plp/plp_bus.hpp"

using namespace islands;

namespace {

void random_pause(std::mt19937_64& rng) {
  const std::uint64_t spins = rng() % 8 == 0 ? rng() % 2000 : 0;
  for (std::uint64_t i = 0; i < spins; ++i) cpu_relax();
  if (rng() % 64 == 0) std::this_thread::yield();
}

// Every worker sends `per_worker` messages to random other workers (small queues fill up, so
// senders serve their own queues while they wait); receivers count each (source, sequence)
// once and check that each source's sequence numbers arrive in order.
void exactly_once_in_order(std::size_t workers, std::uint64_t per_worker, unsigned seed) {
  PlpBus bus(workers);
  std::atomic<std::uint64_t> received{0};
  const std::uint64_t total = workers * per_worker;
  std::vector<std::vector<std::uint64_t>> count(workers, std::vector<std::uint64_t>(workers * per_worker, 0));
  std::vector<std::vector<std::uint64_t>> last(workers, std::vector<std::uint64_t>(workers, 0));
  std::atomic<int> disorder{0};
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937_64 rng(seed * 1000 + w);
      const auto take = [&] {
        PlpMessage m;
        if (!bus.receive(w, m)) return false;
        ++count[w][m.source * per_worker + (m.txn - 1)];
        if (m.txn <= last[w][m.source]) disorder.fetch_add(1);
        last[w][m.source] = m.txn;
        received.fetch_add(1);
        return true;
      };
      for (std::uint64_t seq = 1; seq <= per_worker; ++seq) {
        std::size_t to = rng() % (workers - 1);
        if (to >= w) ++to;
        PlpMessage m;
        m.kind = PlpMessage::action;
        m.source = static_cast<std::uint32_t>(w);
        m.txn = seq;
        while (!bus.try_send(w, to, m)) {
          if (!take()) std::this_thread::yield();
        }
        if (bus.may_have_message(w)) take();
        random_pause(rng);
      }
      while (received.load() < total) {
        if (!take()) std::this_thread::yield();  // more threads than cores here: let the others run
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::uint64_t once = 0, sum = 0;
  for (std::size_t w = 0; w < workers; ++w) {
    for (std::uint64_t c : count[w]) {
      sum += c;
      if (c == 1) ++once;
    }
  }
  CHECK(sum == total);   // nothing duplicated or lost
  CHECK(once == total);  // each message exactly once
  CHECK(disorder.load() == 0);
}

// A receiver that looked at its doorbell and found nothing sees the next message's ring.
void doorbell_rings() {
  PlpBus bus(2);
  CHECK(!bus.may_have_message(1));
  PlpMessage m, out;
  m.source = 0;
  m.txn = 7;
  CHECK(bus.try_send(0, 1, m));
  CHECK(bus.may_have_message(1));
  CHECK(bus.receive(1, out) && out.txn == 7);
  CHECK(!bus.receive(1, out));
  CHECK(!bus.may_have_message(1));
  CHECK(!bus.may_have_message(0));
}

// Rendezvous under random interleavings: each worker coordinates `txns` transactions, each
// posting an action with a payload to every other worker and waiting for all outcomes while
// serving others' actions; an owner answers with payload + 1 after a random pause, and aborts
// some. The coordinator must see every reply of its own transaction (never a stale one).
void rendezvous(std::size_t workers, std::uint64_t txns, unsigned seed) {
  PlpBus bus(workers);
  std::atomic<std::size_t> finished{0};
  std::atomic<int> wrong{0};
  std::atomic<std::uint64_t> executed{0}, posted{0};
  struct Reply {
    std::uint64_t payload;
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937_64 rng(seed * 7919 + w);
      std::vector<PlpAction> actions(workers);
      std::vector<std::vector<std::uint64_t>> words(workers, std::vector<std::uint64_t>(2));
      const auto serve = [&] {
        PlpMessage m;
        if (!bus.receive(w, m)) return false;
        random_pause(rng);
        PlpAction& a = *m.target;
        // The action's words are the coordinator's: (txn, payload). Answer in its redo bytes.
        if (a.n != 2 || a.words[0] != m.txn) wrong.fetch_add(1);
        const std::uint64_t answer = a.words[1] + 1;
        a.redo.assign(reinterpret_cast<const unsigned char*>(&answer),
                      reinterpret_cast<const unsigned char*>(&answer) + sizeof answer);
        executed.fetch_add(1);
        a.publish(answer % 5 == 0 ? PlpAction::kAborted : PlpAction::kDone);
        bus.notify(m.source);  // wakes the coordinator if it sleeps at the rendezvous
        return true;
      };
      for (std::uint64_t t = 1; t <= txns; ++t) {
        const std::uint64_t txn = (std::uint64_t{w} << 32) | t;
        for (std::size_t p = 0; p < workers; ++p) {
          if (p == w) continue;
          words[p] = {txn, rng() % 1000};
          actions[p].post(words[p]);
          PlpMessage m;
          m.kind = PlpMessage::action;
          m.source = static_cast<std::uint32_t>(w);
          m.txn = txn;
          m.target = &actions[p];
          while (!bus.try_send(w, p, m)) {
            if (!serve()) std::this_thread::yield();
          }
          posted.fetch_add(1);
        }
        for (std::size_t p = 0; p < workers; ++p) {
          if (p == w) continue;
          // The engine's wait: serve, spin a moment, then sleep on the doorbell until a
          // message or this outcome arrives (a lost wake-up would hang here up to 1 ms).
          auto since = std::chrono::steady_clock::now();
          while (actions[p].poll() == PlpAction::kPending) {
            if (serve()) {
              since = std::chrono::steady_clock::now();
            } else {
              bus.idle(w, since, [&] { return actions[p].poll() != PlpAction::kPending; });
            }
          }
          std::uint64_t answer = 0;
          if (actions[p].redo.size() == sizeof answer) std::memcpy(&answer, actions[p].redo.data(), sizeof answer);
          if (answer != words[p][1] + 1) wrong.fetch_add(1);
          const bool aborted = actions[p].poll() == PlpAction::kAborted;
          if (aborted != (answer % 5 == 0)) wrong.fetch_add(1);
        }
      }
      finished.fetch_add(1);
      while (finished.load() < workers) {
        if (!serve()) std::this_thread::yield();
      }
      while (serve()) {
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(wrong.load() == 0);
  CHECK(posted.load() == workers * (workers - 1) * txns);
  CHECK(executed.load() == posted.load());
}

}  // namespace

int main() {
  doorbell_rings();
  for (unsigned seed = 1; seed <= 3; ++seed) {
    exactly_once_in_order(2, 20000, seed);
    exactly_once_in_order(4, 4000, seed);
    rendezvous(2, 2000, seed);
    rendezvous(3, 500, seed);
  }
  return test_summary("test_plp_bus");
}
