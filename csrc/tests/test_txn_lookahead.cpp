// engine.interleave's pipeline (exec/txn_lookahead.hpp): the transactions come out in the
// order drawn, each drawn once; each stage of each transaction is issued once, in stage order,
// at its distance before the transaction comes out (or while the pipeline fills); depth 0 and
// workloads without the hooks draw each transaction when it is needed. The depth a config
// asks for, and the micro workload's hooks over a real hash index (HashIndex::peek agrees
// with lookup and never invents a value).
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "check.hpp"
#include "test_cases.hpp"
#include "islands/common/system_memory.hpp"
#include "islands/exec/txn_lookahead.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/storage/row.hpp"
#include "islands/workload/micro_workload.hpp"

using islands::EngineConfig;
using islands::TxnLookahead;

namespace {

// A workload whose transaction i carries i, with `stages` stages that it logs.
struct FakeWorkload {
  struct Txn {
    std::vector<std::uint64_t> words;
    std::vector<islands::Row*> rows;
  };
  struct Issue {
    std::uint64_t txn;
    std::size_t stage;
    std::size_t call;  // the next() call it happened in
  };
  std::size_t stages = 2;
  mutable std::vector<Issue> issued;
  std::size_t call = 0;

  std::size_t prefetch_stages() const { return stages; }
  void prefetch_ahead(const Txn& txn, std::size_t stage) const { issued.push_back({txn.words.at(0), stage, call}); }
  std::size_t footprint_bytes() const { return 1; }
};

// A workload without the hooks.
struct PlainWorkload {
  struct Txn {
    std::vector<std::uint64_t> words;
    std::vector<islands::Row*> rows;
  };
};

void order_and_stages() {
  for (std::size_t stages = 1; stages <= 3; ++stages) {
    for (std::size_t depth = 0; depth <= 9; ++depth) {
      FakeWorkload w;
      w.stages = stages;
      TxnLookahead<FakeWorkload> ahead(w, depth);
      CHECK(ahead.depth() == depth);
      CHECK(ahead.distances().size() == (depth == 0 ? 0 : stages));
      std::uint64_t drawn = 0;
      const auto draw = [&](FakeWorkload::Txn& t) {
        t.words.assign(1, drawn++);
      };
      constexpr std::size_t kCalls = 50;
      FakeWorkload::Txn txn;
      for (std::size_t call = 0; call < kCalls; ++call) {
        w.call = call;
        ahead.next(txn, draw);
        CHECK(txn.words.size() == 1 && txn.words[0] == call);  // in the order drawn, none skipped
      }
      CHECK(drawn == kCalls + depth);  // the pipeline holds `depth` drawn but not handed out
      if (depth == 0) {
        CHECK(w.issued.empty());
        continue;
      }
      const std::vector<std::size_t>& d = ahead.distances();
      CHECK(d.front() == depth);  // stage 0 as it is drawn
      CHECK(d.back() >= 1);       // the last stage before it goes out
      for (std::size_t s = 1; s < stages; ++s) CHECK(d[s] <= d[s - 1]);
      // Every transaction handed out had each stage once, in order, at call k - distance.
      std::vector<std::vector<std::size_t>> seen(kCalls + depth);
      for (const auto& issue : w.issued) {
        CHECK(issue.txn < seen.size());
        if (issue.txn >= seen.size()) continue;
        CHECK(issue.stage == seen[issue.txn].size());  // in stage order
        seen[issue.txn].push_back(issue.call);
      }
      for (std::size_t k = 0; k < kCalls; ++k) {
        CHECK(seen[k].size() == stages);
        for (std::size_t s = 0; s < seen[k].size(); ++s) {
          const std::size_t expected = k >= d[s] ? k - d[s] : 0;  // or while the pipeline filled
          CHECK(seen[k][s] == expected);
          CHECK(seen[k][s] <= k);  // before it went out
        }
      }
    }
  }
}

void configured_depth() {
  FakeWorkload w;
  EngineConfig engine;
  CHECK(engine.interleave == -1);  // auto by default: off for cache-resident data
  CHECK(TxnLookahead<FakeWorkload>(w, engine).depth() == 0);
  engine.interleave = 3;
  CHECK(TxnLookahead<FakeWorkload>(w, engine).depth() == 3);
  engine.prefetch = false;  // interleaving is a kind of prefetching: off with it
  CHECK(TxnLookahead<FakeWorkload>(w, engine).depth() == 0);
  engine.prefetch = true;
  engine.interleave = 0;
  CHECK(TxnLookahead<FakeWorkload>(w, engine).depth() == 0);
  engine.interleave = -1;  // one byte of data is cache-resident: auto leaves it off
  CHECK(TxnLookahead<FakeWorkload>(w, engine).depth() == 0);
  CHECK(islands::auto_interleave_depth(1) == 0);
  // Data beyond any cache: on where the cache size is known.
  if (islands::last_level_cache_bytes() > 0) CHECK(islands::auto_interleave_depth(std::size_t{1} << 50) > 0);
  w.stages = 0;  // nothing to prefetch ahead: off whatever the setting
  engine.interleave = 5;
  CHECK(TxnLookahead<FakeWorkload>(w, engine).depth() == 0);
  PlainWorkload plain;
  TxnLookahead<PlainWorkload> none(plain, engine);
  CHECK(none.depth() == 0);
  int draws = 0;
  PlainWorkload::Txn txn;
  none.next(txn, [&](PlainWorkload::Txn& t) { t.words.assign(1, static_cast<std::uint64_t>(draws++)); });
  CHECK(draws == 1 && txn.words.at(0) == 0);
}

void hash_peek() {
  islands::HashIndex index(20000);
  for (std::uint64_t k = 0; k < 20000; ++k) index.insert(k * 7 + 1, k * 3);
  std::size_t found = 0;
  for (std::uint64_t k = 0; k < 20000; ++k) {
    std::uint64_t value = ~std::uint64_t{0};
    if (index.peek(k * 7 + 1, value)) {
      ++found;
      CHECK(value == k * 3);  // never another key's value
    }
  }
  CHECK(found >= 19000);  // a glance at the run finds nearly all (load factor <= 1/2)
  std::uint64_t value = 0;
  for (std::uint64_t k = 0; k < 1000; ++k) CHECK(!index.peek(k * 7 + 2, value));  // absent keys
}

void micro_hooks() {
  islands::MicroConfig micro;
  micro.rows_per_site = 1000;
  EngineConfig engine;
  islands::MicroWorkload<islands::HashIndex> w(micro, engine, 1);
  w.load_site(0);
  w.finish_load(true);
  CHECK(w.prefetch_stages() == 2);
  CHECK(w.footprint_bytes() >= 1000 * islands::Row::stride(micro.columns));
  islands::Random rng(3);
  islands::MicroWorkload<islands::HashIndex>::Txn txn;
  const std::int64_t before = w.payload_sum();
  for (int i = 0; i < 100; ++i) {
    w.generate(txn, rng, 0);
    w.prefetch_ahead(txn, 0);
    w.prefetch_ahead(txn, 1);
  }
  CHECK(w.payload_sum() == before);  // hints: nothing changed
  // A key of another instance's site is skipped (it is not in this index).
  txn.words.assign(1, 5000);
  w.prefetch_ahead(txn, 1);
  islands::MicroWorkload<islands::BTreeIndex> tree(micro, engine, 1);
  CHECK(tree.prefetch_stages() == 0);  // a B+tree descent cannot be prefetched ahead
  engine.interleave = 4;
  CHECK(TxnLookahead<islands::MicroWorkload<islands::BTreeIndex>>(tree, engine).depth() == 0);
  CHECK(TxnLookahead<islands::MicroWorkload<islands::HashIndex>>(w, engine).depth() == 4);
  engine.interleave = -1;  // auto (the default): off over a B+tree, off where 1,000 rows fit the cache
  CHECK(TxnLookahead<islands::MicroWorkload<islands::BTreeIndex>>(tree, engine).depth() == 0);
  CHECK(TxnLookahead<islands::MicroWorkload<islands::HashIndex>>(w, engine).depth() == 0);
}

}  // namespace

int main(int argc, char** argv) {
  islands_test::run_cases({{"order_and_stages", order_and_stages},
                           {"configured_depth", configured_depth},
                           {"hash_peek", hash_peek},
                           {"micro_hooks", micro_hooks}},
                          argc, argv, islands_test::failures);
  return test_summary("test_txn_lookahead");
}
