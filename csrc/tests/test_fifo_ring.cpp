#include <cstddef>
#include <deque>
#include <memory>

#include "check.hpp"
#include "islands/common/fifo_ring.hpp"
#include "islands/common/random.hpp"

using namespace islands;

int main() {
  // First in, first out across every growth, with the ring wrapped when it grows.
  FifoRing<std::unique_ptr<int>> ring;
  CHECK(ring.empty() && ring.size() == 0);
  std::deque<int> expected;
  int next = 0;
  bool in_order = true;
  Random random(7);
  for (int step = 0; step < 20000; ++step) {
    // Mostly pushes early, mostly pops late: the queue grows through several doublings with
    // its head anywhere in the ring, then drains.
    const bool push = expected.empty() || random.below(100) < (step < 10000 ? 60 : 40);
    if (push) {
      ring.push_back(std::make_unique<int>(next));
      expected.push_back(next++);
    } else {
      in_order &= ring.front() != nullptr && *ring.front() == expected.front();
      ring.front().reset();
      ring.pop_front();
      expected.pop_front();
    }
    in_order &= ring.size() == expected.size() && ring.empty() == expected.empty();
  }
  CHECK(in_order);
  CHECK(next > 10000);
  while (!expected.empty()) {
    CHECK(*ring.front() == expected.front());
    ring.pop_front();
    expected.pop_front();
  }
  CHECK(ring.empty());

  // A slot is reused once popped: a short queue stays in its first ring.
  FifoRing<int> small;
  for (int i = 0; i < 1000; ++i) {
    small.push_back(int{i});
    small.push_back(int{i + 1});
    CHECK(small.front() == i);
    small.pop_front();
    CHECK(small.front() == i + 1);
    small.pop_front();
  }
  CHECK(small.empty());
  return 0;
}
