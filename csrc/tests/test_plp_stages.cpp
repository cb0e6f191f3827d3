// PLP's action graph (exec/plp/plp_stages.hpp): a transaction cut per (partition, stage). A toy
// workload whose operations are [kind, unit] (kind 2 consumes what the others produce) is cut
// under random routing tables: one stage unless a consumer meets several partitions, then the
// consumers alone in stage 1; every operation exactly once, at its unit's owner, in the
// transaction's order; with one stage exactly route_split's cut; a frozen unit refuses the
// cut. And the records TPC-C's stock and home steps hand the lines step
// (workload/tpcc_rendezvous.hpp) come back as they went in.
#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "check.hpp"
#include "islands/exec/plp/plp_stages.hpp"
#include "islands/workload/tpcc_rendezvous.hpp"

using namespace islands;

namespace {

constexpr std::uint64_t kProduce = 1, kConsume = 2;

// Operations of two words: [kind, unit].
struct ToyWorkload {
  struct Txn {
    std::vector<std::uint64_t> words;
  };
  std::pair<std::size_t, std::uint64_t> locate(const std::uint64_t* words, std::size_t, std::size_t at) const {
    return {2, words[at + 1]};
  }
  bool consumes(const std::uint64_t* words, std::size_t, std::size_t at) const { return words[at] == kConsume; }
};
// The same without consuming operations.
struct PlainWorkload {
  using Txn = ToyWorkload::Txn;
  std::pair<std::size_t, std::uint64_t> locate(const std::uint64_t* words, std::size_t, std::size_t at) const {
    return {2, words[at + 1]};
  }
};
static_assert(HasStages<ToyWorkload>::value, "a workload declaring consumes() is staged");
static_assert(!HasStages<PlainWorkload>::value, "a workload without it is not");

// The operations of `parts[p]` in order, as (kind, unit) pairs.
std::vector<std::pair<std::uint64_t, std::uint64_t>> ops_of(const TxnPart& part) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ops;
  for (std::size_t at = 0; at < part.words.size(); at += 2) ops.emplace_back(part.words[at], part.words[at + 1]);
  return ops;
}

void a_known_cut() {
  // Units 0..9 on worker 0, 10..19 on worker 1 (first unit 0).
  PlpRoute route;
  route.owner.assign(20, 0);
  for (std::size_t u = 10; u < 20; ++u) route.owner[u] = 1;
  const ToyWorkload toy;
  std::vector<TxnPart> first(2), second(2);
  // A consumer at worker 0 fed by producers on both workers: two stages.
  ToyWorkload::Txn txn{{kConsume, 3, kProduce, 4, kProduce, 12, kProduce, 5}};
  CHECK(stage_split(toy, txn, route, 0, first, second) == 2);
  CHECK(first[0].words == (std::vector<std::uint64_t>{kProduce, 4, kProduce, 5}));
  CHECK(first[1].words == (std::vector<std::uint64_t>{kProduce, 12}));
  CHECK(second[0].words == (std::vector<std::uint64_t>{kConsume, 3}));
  CHECK(second[1].empty());
  CHECK(first[1].site == 1 && second[0].site == 0);
  // All on worker 1 (say, after a re-partitioning): one stage, one action.
  txn.words = {kConsume, 13, kProduce, 14, kProduce, 12};
  CHECK(stage_split(toy, txn, route, 0, first, second) == 1);
  CHECK(first[0].empty() && first[1].words == txn.words && second[0].empty() && second[1].empty());
  // Spread, but nothing consumes: one stage.
  txn.words = {kProduce, 1, kProduce, 11};
  CHECK(stage_split(toy, txn, route, 0, first, second) == 1);
  CHECK(first[0].words.size() == 2 && first[1].words.size() == 2);
  // A frozen unit: no cut.
  route.owner[11] = PlpRoute::kFrozen;
  CHECK(stage_split(toy, txn, route, 0, first, second) == 0);
}

void random_cuts(unsigned seed) {
  std::mt19937_64 rng(seed);
  const ToyWorkload toy;
  for (int round = 0; round < 2000; ++round) {
    const std::size_t workers = 1 + rng() % 4, units = 4 + rng() % 20;
    const std::uint64_t first_unit = rng() % 3 * kUnitsPerSite;
    PlpRoute route;
    route.owner.resize(units);
    bool any_frozen = false;
    for (auto& o : route.owner) o = static_cast<std::uint32_t>(rng() % workers);
    ToyWorkload::Txn txn;
    const std::size_t ops = 1 + rng() % 8;
    for (std::size_t k = 0; k < ops; ++k) {
      txn.words.push_back(rng() % 4 == 0 ? kConsume : kProduce);
      txn.words.push_back(first_unit + rng() % units);
    }
    if (rng() % 10 == 0) {  // freeze a unit, maybe one the transaction needs
      const std::size_t u = rng() % units;
      route.owner[u] = PlpRoute::kFrozen;
      for (std::size_t at = 0; at < txn.words.size(); at += 2) any_frozen |= txn.words[at + 1] - first_unit == u;
    }
    std::vector<TxnPart> first(workers), second(workers), plain(workers);
    const unsigned stages = stage_split(toy, txn, route, first_unit, first, second);
    if (any_frozen) {
      CHECK(stages == 0);
      continue;
    }
    CHECK(stages == 1 || stages == 2);
    CHECK(route_split(toy, txn, route, first_unit, plain));
    std::size_t touched = 0;
    bool consumer = false;
    for (const TxnPart& part : plain) touched += !part.empty();
    for (std::size_t at = 0; at < txn.words.size(); at += 2) consumer |= txn.words[at] == kConsume;
    CHECK((stages == 2) == (consumer && touched > 1));
    for (std::size_t w = 0; w < workers; ++w) {
      if (stages == 1) {
        CHECK(first[w].words == plain[w].words);  // exactly the one-stage cut
        CHECK(second[w].empty());
        continue;
      }
      // Stage 0 then stage 1 of worker w: its operations of the one-stage cut, non-consumers
      // first, each stage in the transaction's order.
      std::vector<std::pair<std::uint64_t, std::uint64_t>> expected_first, expected_second;
      for (const auto& op : ops_of(plain[w])) (op.first == kConsume ? expected_second : expected_first).push_back(op);
      CHECK(ops_of(first[w]) == expected_first);
      CHECK(ops_of(second[w]) == expected_second);
      for (const TxnPart* part : {&first[w], &second[w]}) {
        for (const auto& op : ops_of(*part)) CHECK(route.owner[op.second - first_unit] == w);
        if (!part->empty()) CHECK(part->site == site_of_unit(part->words[1]));
      }
    }
  }
}

void stock_line_records() {
  std::vector<std::uint64_t> out;
  char dist_a[24], dist_b[24];
  for (int i = 0; i < 24; ++i) {
    dist_a[i] = static_cast<char>('A' + i);
    dist_b[i] = static_cast<char>('a' + i);
  }
  tpcc::StockLineRecord::append(out, 7, 1234, dist_a, true);
  tpcc::StockLineRecord::append(out, 3, 1234, dist_b, false);
  CHECK(out.size() == 2 * tpcc::StockLineRecord::kWords);
  const std::uint64_t* a = tpcc::StockLineRecord::find(out.data(), out.size(), 7, 1234);
  const std::uint64_t* b = tpcc::StockLineRecord::find(out.data(), out.size(), 3, 1234);
  CHECK(a != nullptr && b != nullptr && a != b);
  CHECK(std::memcmp(tpcc::StockLineRecord::dist_info(a), dist_a, 24) == 0 && tpcc::StockLineRecord::original(a));
  CHECK(std::memcmp(tpcc::StockLineRecord::dist_info(b), dist_b, 24) == 0 && !tpcc::StockLineRecord::original(b));
  CHECK(tpcc::StockLineRecord::find(out.data(), out.size(), 7, 1235) == nullptr);
  CHECK(tpcc::StockLineRecord::find(out.data(), out.size(), 1234, 7) == nullptr);
  CHECK(tpcc::StockLineRecord::find(nullptr, 0, 7, 1234) == nullptr);
  // The home step's record (the order's number, its items' "ORIGINAL" bits) among them.
  CHECK(tpcc::StockLineRecord::find_order(out.data(), out.size()) == nullptr);
  tpcc::StockLineRecord::append_order(out, 3001, 0b101);
  tpcc::StockLineRecord::append(out, 9, 1, dist_a, false);
  const std::uint64_t* home = tpcc::StockLineRecord::find_order(out.data(), out.size());
  CHECK(home != nullptr && tpcc::StockLineRecord::order(home) == 3001 &&
        tpcc::StockLineRecord::item_original(home) == 0b101);
  CHECK(tpcc::StockLineRecord::find(out.data(), out.size(), 9, 1) == out.data() + 3 * tpcc::StockLineRecord::kWords);
}

}  // namespace

int main() {
  a_known_cut();
  for (unsigned seed = 1; seed <= 3; ++seed) random_cuts(seed);
  stock_line_records();
  return test_summary("test_plp_stages");
}
