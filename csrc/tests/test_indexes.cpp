#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/common/random.hpp"
#include "islands/index/btree_index.hpp"
#include "islands/index/hash_index.hpp"

using namespace islands;

int main() {
  // Random inserts against std::map, enough keys for a tree four levels deep.
  BTreeIndex tree;
  HashIndex hash(16);  // starts tiny: must grow many times
  std::map<std::uint64_t, std::uint64_t> model;
  Random rng(7);
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t key = rng.below(1'000'000);
    const bool fresh = model.emplace(key, i).second;
    CHECK(tree.insert(key, i) == fresh);
    CHECK(hash.insert(key, i) == fresh);
  }
  CHECK(tree.size() == model.size());
  CHECK(hash.size() == model.size());
  CHECK(tree.height() >= 4);
  for (std::uint64_t key = 0; key < 1'000'000; key += 7) {
    std::uint64_t a = 0, b = 0;
    const auto it = model.find(key);
    CHECK(tree.lookup(key, a) == (it != model.end()));
    CHECK(hash.lookup(key, b) == (it != model.end()));
    if (it != model.end()) CHECK(a == it->second && b == it->second);
  }
  // Range scans return exactly the model's keys in order.
  std::vector<std::uint64_t> seen;
  tree.scan(123'456, 234'567, [&](std::uint64_t k, std::uint64_t) {
    seen.push_back(k);
    return true;
  });
  std::vector<std::uint64_t> expected;
  for (auto it = model.lower_bound(123'456); it != model.end() && it->first <= 234'567; ++it) {
    expected.push_back(it->first);
  }
  CHECK(seen == expected);
  // Early stop.
  int visited = 0;
  tree.scan(0, ~std::uint64_t{0}, [&](std::uint64_t, std::uint64_t) { return ++visited < 10; });
  CHECK(visited == 10);
  // Ascending and descending insert orders (worst cases for splits).
  BTreeIndex up, down;
  for (std::uint64_t k = 0; k < 50000; ++k) {
    CHECK(up.insert(k, k));
    CHECK(down.insert(50000 - k, k));
  }
  std::uint64_t v = 0;
  CHECK(up.lookup(49999, v) && v == 49999);
  CHECK(down.lookup(1, v) && v == 49999);
  CHECK(!down.lookup(0, v));
  CHECK(up.update(5, 77) && up.lookup(5, v) && v == 77);
  CHECK(!up.update(50001, 1));

  // Optimistic readers racing a writer that inserts (and so splits nodes and grows
  // partitions): every preloaded key is always found with its value.
  const auto race = [](auto& index) {
    constexpr std::uint64_t kPreloaded = 20000, kInserted = 200000 / islands_test::kRaceScale;
    for (std::uint64_t k = 0; k < kPreloaded; ++k) index.insert(k * 2, k * 3);
    std::atomic<bool> done{false};
    std::atomic<long> wrong{0}, reads{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 2; ++t) {
      readers.emplace_back([&, t] {
        Random r(100 + t);
        while (!done.load()) {
          const std::uint64_t k = r.below(kPreloaded);
          std::uint64_t v = 0;
          if (!index.lookup(k * 2, v) || v != k * 3) ++wrong;
          ++reads;
        }
      });
    }
    // The readers have started (however the threads were scheduled) before the writer does.
    while (reads.load() == 0) std::this_thread::yield();
    for (std::uint64_t k = 0; k < kInserted; ++k) index.insert(k * 2 + 1, k);
    done = true;
    for (auto& t : readers) t.join();
    CHECK(wrong.load() == 0);
    CHECK(index.size() == kPreloaded + kInserted);
  };
  HashIndex racing_hash(16, true);
  race(racing_hash);
  BTreeIndex racing_tree(true);
  race(racing_tree);

  // Optimistic readers racing a writer that erases and re-inserts the odd keys, so the hash
  // index shifts keys of a probe run back into each gap and the tree's leaves shrink and
  // refill: every even key is always found with its value.
  const auto race_erase = [](auto& index) {
    constexpr std::uint64_t kKeys = 20000, kRounds = 20 / islands_test::kRaceScale + 1;
    for (std::uint64_t k = 0; k < 2 * kKeys; ++k) index.insert(k, k * 3);
    std::atomic<bool> done{false};
    std::atomic<long> wrong{0}, reads{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 2; ++t) {
      readers.emplace_back([&, t] {
        Random r(200 + t);
        while (!done.load()) {
          const std::uint64_t k = 2 * r.below(kKeys);
          std::uint64_t v = 0;
          if (!index.lookup(k, v) || v != k * 3) ++wrong;
          ++reads;
        }
      });
    }
    while (reads.load() == 0) std::this_thread::yield();
    long erased = 0;
    for (std::uint64_t round = 0; round < kRounds; ++round) {
      for (std::uint64_t k = 1; k < 2 * kKeys; k += 2) erased += index.erase(k) ? 1 : 0;
      for (std::uint64_t k = 1; k < 2 * kKeys; k += 2) index.insert(k, k * 3);
    }
    done = true;
    for (auto& t : readers) t.join();
    CHECK(wrong.load() == 0);
    CHECK(erased == static_cast<long>(kRounds * kKeys));
    CHECK(index.size() == 2 * kKeys);
  };
  HashIndex erasing_hash(16, true);
  race_erase(erasing_hash);
  BTreeIndex erasing_tree(true);
  race_erase(erasing_tree);
  return test_summary("indexes");
}
