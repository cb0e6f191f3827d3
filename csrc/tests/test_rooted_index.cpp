// The multi-rooted index (index/rooted_index.hpp): keys land in the root their mapping names,
// lookups, updates, erases and inserts go to that root only, scans never cross roots, and
// latch-free roots each used by one thread at a time, handed over between threads through an
// acquire/release flag as PLP's routing hands units over, are race-free (the TSan build runs
// this test: a latch-free root touched by two threads without the hand-over would be a
// reported data race).
#include <atomic>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/common/random.hpp"
#include "islands/index/btree_index.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/index/rooted_index.hpp"

using namespace islands;

namespace {

constexpr std::uint64_t kKeysPerRoot = 1000;
constexpr std::size_t kRoots = 10;

// Key k belongs to root k / 1000; keys from 10,000 on belong to no root of the index.
struct ThousandRoots {
  std::size_t operator()(std::uint64_t key) const { return key / kKeysPerRoot; }
};

template <class Index>
void per_root_operations() {
  RootedIndex<Index, ThousandRoots> index(kRoots, kRoots * kKeysPerRoot, ThousandRoots{});
  CHECK(index.roots() == kRoots);
  for (std::uint64_t k = 0; k < kRoots * kKeysPerRoot; ++k) CHECK(index.insert(k, k + 1));
  CHECK(index.size() == kRoots * kKeysPerRoot);
  // Every key is in its own root, and in no other.
  for (std::size_t r = 0; r < kRoots; ++r) {
    CHECK(index.root(r).size() == kKeysPerRoot);
    std::uint64_t v = 0;
    CHECK(index.root(r).lookup(r * kKeysPerRoot + 7, v) && v == r * kKeysPerRoot + 8);
    CHECK(!index.root(r).lookup(((r + 1) % kRoots) * kKeysPerRoot + 7, v));
    CHECK(index.root_of(r * kKeysPerRoot + 999) == r);
  }
  // Lookups, updates, erases and inserts through the index reach the key's root.
  std::uint64_t v = 0;
  CHECK(index.lookup(4321, v) && v == 4322);
  CHECK(index.update(4321, 9) && index.root(4).lookup(4321, v) && v == 9);
  CHECK(index.erase(4321) && !index.lookup(4321, v) && index.root(4).size() == kKeysPerRoot - 1);
  CHECK(!index.erase(4321));
  CHECK(index.insert(4321, 10) && index.root(4).size() == kKeysPerRoot);
  CHECK(!index.insert(4321, 11));
  // A key of no root here: not found, not inserted.
  CHECK(!index.lookup(kRoots * kKeysPerRoot + 5, v));
  CHECK(!index.insert(kRoots * kKeysPerRoot + 5, 1));
  CHECK(index.size() == kRoots * kKeysPerRoot);
  // Latching switches in every root.
  index.set_latching(false);
  CHECK(!index.latching());
  for (std::size_t r = 0; r < kRoots; ++r) CHECK(!index.root(r).latching());
}

void scans_stay_in_one_root() {
  RootedIndex<BTreeIndex, ThousandRoots> index(kRoots, 0, ThousandRoots{});
  for (std::uint64_t k = 0; k < kRoots * kKeysPerRoot; k += 3) CHECK(index.insert(k, k));
  std::vector<std::uint64_t> seen;
  index.scan(2000, 2999, [&](std::uint64_t k, std::uint64_t) {
    seen.push_back(k);
    return true;
  });
  std::vector<std::uint64_t> expected;
  for (std::uint64_t k = 2001; k <= 2999; k += 3) expected.push_back(k);
  CHECK(seen == expected);
  // A range over two roots is refused (it would have to cross them).
  bool refused = false;
  try {
    index.scan(2500, 3500, [](std::uint64_t, std::uint64_t) { return true; });
  } catch (const std::logic_error&) {
    refused = true;
  }
  CHECK(refused);
  // One root: everything is in it, and scans run over all of it (today's single index).
  RootedIndex<BTreeIndex, ThousandRoots> one(1, 0, ThousandRoots{});
  for (std::uint64_t k = 0; k < 5000; ++k) CHECK(one.insert(k, k));
  CHECK(one.root(0).size() == 5000);
  int visited = 0;
  one.scan(500, 4499, [&](std::uint64_t, std::uint64_t) { return ++visited > 0; });
  CHECK(visited == 4000);
}

// Two threads, latching off, each owning half the roots; then every root changes owner
// through a release/acquire hand-over (the old owner stops, publishes, the new one starts),
// as PLP's re-partitioning moves a unit's root; the results match a model.
template <class Index>
void latch_free_roots_handed_over() {
  RootedIndex<Index, ThousandRoots> index(kRoots, kRoots * kKeysPerRoot, ThousandRoots{});
  for (std::uint64_t k = 0; k < kRoots * kKeysPerRoot; k += 2) index.insert(k, k);
  index.set_latching(false);
  std::atomic<int> handed{0};
  // Worker t works on roots r with r % 2 == t (round 0), then on the others (round 1).
  const auto work = [&](int t) {
    Random rng(31 + static_cast<std::uint64_t>(t));
    for (int round = 0; round < 2; ++round) {
      if (round == 1) {
        handed.fetch_add(1, std::memory_order_release);  // gives its roots away
        while (handed.load(std::memory_order_acquire) < 2) std::this_thread::yield();  // takes the other's
      }
      for (int i = 0; i < 20000; ++i) {
        const std::size_t r = 2 * rng.below(kRoots / 2) + static_cast<std::size_t>((t + round) % 2);
        const std::uint64_t k = r * kKeysPerRoot + rng.below(kKeysPerRoot);
        std::uint64_t v = 0;
        if (index.lookup(k, v)) {
          if (k % 3 == 0) index.erase(k); else index.update(k, v + 1);
        } else {
          index.insert(k, k);
        }
      }
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  // Every key still in its own root (erases and inserts never strayed).
  std::size_t total = 0;
  for (std::size_t r = 0; r < kRoots; ++r) {
    total += index.root(r).size();
    for (std::uint64_t k = r * kKeysPerRoot; k < (r + 1) * kKeysPerRoot; ++k) {
      std::uint64_t v = 0;
      CHECK(index.root(r).lookup(k, v) == index.lookup(k, v));
    }
  }
  CHECK(total == index.size());
}

}  // namespace

int main() {
  per_root_operations<HashIndex>();
  per_root_operations<BTreeIndex>();
  scans_stay_in_one_root();
  latch_free_roots_handed_over<HashIndex>();
  latch_free_roots_handed_over<BTreeIndex>();
  return test_summary("test_rooted_index");
}
