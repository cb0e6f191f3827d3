// PLP hand-off (exec/plp/plp_handoff.hpp): a drawer's window of W slots (never more outstanding,
// a slot back twice or from elsewhere refused), an owner's inbox (arrival order; handed
// transactions before the own draw, at most `limit` in a row unless the own draw is blocked;
// more than the windows hold refused), the home of a transaction (its first operation's unit
// owner), and the protocol over the bus between two threads: every handed transaction is run
// exactly once, in order, and comes back.
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "check.hpp"
#include "islands/exec/plp/plp_bus.hpp"
#include "islands/exec/plp/plp_handoff.hpp"
#include "islands/exec/plp/plp_routing.hpp"
#include "test_cases.hpp"

using namespace islands;

namespace {

struct Txn {
  std::vector<std::uint64_t> words;
};
using Slot = PlpHandedTxn<Txn>;

template <class F>
bool refused(F&& f) {
  try {
    f();
  } catch (const std::logic_error&) {
    return true;
  }
  return false;
}

void window() {
  PlpHandoffWindow<Txn> w(3, 7);
  CHECK(w.size() == 3 && w.outstanding() == 0 && !w.full());
  Slot* a = w.acquire();
  Slot* b = w.acquire();
  Slot* c = w.acquire();
  CHECK(a != b && b != c && a != c);
  CHECK(a->drawer == 7 && c->drawer == 7);
  CHECK(w.full() && w.outstanding() == 3);
  CHECK(refused([&] { w.acquire(); }));
  w.release(b);
  CHECK(!w.full() && w.outstanding() == 2);
  CHECK(refused([&] { w.release(b); }));  // back twice
  PlpHandoffWindow<Txn> other(1, 0);
  Slot* foreign = other.acquire();
  CHECK(refused([&] { w.release(foreign); }));
  CHECK(w.acquire() == b);  // the slot is reused
  PlpHandoffWindow<Txn> off(0, 0);
  CHECK(off.full() && off.outstanding() == 0);
}

void inbox_turns() {
  Slot s[6];
  PlpHandoffInbox<Txn> in(6, 2);
  CHECK(in.next(false) == nullptr);  // nothing handed: the own draw
  for (Slot& x : s) in.push(&x);
  CHECK(in.size() == 6);
  CHECK(refused([&] { in.push(&s[0]); }));  // more than the windows hold
  CHECK(in.next(false) == &s[0]);
  CHECK(in.next(false) == &s[1]);
  CHECK(in.next(false) == nullptr);  // two in a row: the own draw's turn
  CHECK(in.next(false) == &s[2]);
  CHECK(in.next(false) == &s[3]);
  CHECK(in.next(true) == &s[4]);  // the own draw is blocked: handed ones go on
  CHECK(in.next(true) == &s[5]);
  CHECK(in.next(true) == nullptr && in.empty());
  in.push(&s[1]);  // the ring wraps
  CHECK(in.next(false) == &s[1]);
  CHECK(refused([&] { in.pop(); in.pop(); }));
}

// A workload whose operations are (unit, value) pairs.
struct PairWorkload {
  std::pair<std::size_t, std::uint64_t> locate(const std::uint64_t* words, std::size_t, std::size_t at) const {
    return {2, words[at]};
  }
};

void home() {
  PlpRouting routing(2, 2);
  PairWorkload workload;
  const PlpRoute& initial = *routing.current();
  CHECK(handoff_home(workload, {3, 0, 15, 0}, initial, 0) == 0);  // first op on site 0's unit 3
  CHECK(handoff_home(workload, {15, 0, 3, 0}, initial, 0) == 1);  // first op on site 1
  CHECK(handoff_home(workload, {23, 0}, initial, 10) == 1);       // units numbered from 10
  PlpRoute moved = initial;
  moved.owner[3] = 1;
  moved.owner[4] = PlpRoute::kFrozen;
  CHECK(handoff_home(workload, {3, 0, 15, 0}, moved, 0) == 1);  // unit 3 moved to worker 1
  CHECK(handoff_home(workload, {4, 0}, moved, 0) == PlpRoute::kFrozen);
}

// Two threads over a bus: worker 0 draws `n` transactions and hands each to worker 1 within a
// window of `w`; worker 1 runs them (records their number) and gives each back. Every one runs
// once, in the order handed, and the window never holds more than `w`.
void protocol(std::size_t n, std::size_t w) {
  PlpBus bus(2);
  std::vector<std::uint64_t> ran;
  std::size_t most = 0;
  std::size_t unexpected = 0;  // the owner's wrong messages (checked after the join: CHECK is not thread-safe)
  std::thread owner([&] {
    PlpHandoffInbox<Txn> in(w, w);
    PlpMessage m;
    while (ran.size() < n) {
      if (bus.receive(1, m)) {
        if (m.kind != PlpMessage::handoff || m.source != 0) ++unexpected;
        in.push(static_cast<Slot*>(m.slot));
      }
      while (Slot* s = in.next(true)) {
        ran.push_back(s->txn.words.at(0));
        PlpMessage done;
        done.kind = PlpMessage::handoff_done;
        done.source = 1;
        done.slot = s;
        while (!bus.try_send(1, 0, done)) std::this_thread::yield();
      }
    }
  });
  PlpHandoffWindow<Txn> window(w, 0);
  Txn drawn;
  PlpMessage m;
  for (std::uint64_t i = 0; i < n; ++i) {
    drawn.words.assign({i, i * 3});
    while (window.full()) {
      if (bus.receive(0, m)) {
        CHECK(m.kind == PlpMessage::handoff_done);
        window.release(m.slot);
      }
    }
    Slot* s = window.acquire();
    std::swap(s->txn, drawn);
    PlpMessage h;
    h.kind = PlpMessage::handoff;
    h.slot = s;
    while (!bus.try_send(0, 1, h)) std::this_thread::yield();
    if (window.outstanding() > most) most = window.outstanding();
  }
  while (window.outstanding() > 0) {
    if (bus.receive(0, m)) window.release(m.slot);
  }
  owner.join();
  CHECK(unexpected == 0);
  CHECK(ran.size() == n);
  bool in_order = true;
  for (std::size_t i = 0; i < ran.size(); ++i) in_order = in_order && ran[i] == i;
  CHECK(in_order);
  CHECK(most <= w && most >= 1);
}

}  // namespace

int main(int argc, char** argv) {
  islands_test::run_cases({{"window", window},
                           {"inbox_turns", inbox_turns},
                           {"home", home},
                           {"protocol_w1", [] { protocol(20000, 1); }},
                           {"protocol_w8", [] { protocol(20000, 8); }}},
                          argc, argv, islands_test::failures);
  return test_summary("test_plp_handoff");
}
