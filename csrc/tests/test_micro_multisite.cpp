// The micro workload's multisite draw as paper 000 defines it: whatever the skew, the share of
// transactions that touch another site than their home is the configured one, and the skew
// decides which site gets the remote requests (the hottest rows are at site 0).
#include <cstdint>
#include <cstdio>
#include <vector>

#include "check.hpp"
#include "islands/common/random.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/workload/micro_workload.hpp"

namespace {

using namespace islands;

constexpr std::uint64_t kRowsPerSite = 1000;
constexpr std::size_t kSites = 4;
constexpr std::size_t kHome = 2;
constexpr int kDraws = 200000;

struct Shares {
  double multisite = 0;        // transactions with a row off their home site
  double remote_at_site0 = 0;  // of the remote rows, those at site 0
};

Shares draw(double multisite, double zipf_s, std::uint32_t rows_per_txn) {
  MicroConfig micro;
  micro.rows_per_site = kRowsPerSite;
  micro.rows_per_txn = rows_per_txn;
  micro.multisite = multisite;
  micro.zipf_s = zipf_s;
  EngineConfig engine;
  // One instance holding site kHome of kSites (a per-core deployment's instance).
  MicroWorkload<HashIndex> workload(micro, engine, 1, kHome, kSites);
  MicroWorkload<HashIndex>::Txn txn;
  Random rng(7);
  std::uint64_t spread = 0, remote = 0, at_site0 = 0;
  for (int i = 0; i < kDraws; ++i) {
    workload.generate(txn, rng, kHome);
    CHECK(txn.words.size() == rows_per_txn);
    CHECK(txn.words[0] / kRowsPerSite == kHome);  // home row first
    bool off_home = false;
    for (std::uint64_t key : txn.words) {
      CHECK(key < kSites * kRowsPerSite);
      const std::uint64_t site = key / kRowsPerSite;
      if (site != kHome) {
        off_home = true;
        ++remote;
        if (site == 0) ++at_site0;
      }
    }
    spread += off_home;
    CHECK(workload.local_txn(txn) == !off_home);  // the worker's uncut fast path (instance = site kHome)
  }
  return {static_cast<double>(spread) / kDraws, remote ? static_cast<double>(at_site0) / static_cast<double>(remote) : 0};
}

}  // namespace

int main() {
  for (double s : {0.0, 0.5, 1.0, 1.5}) {
    for (std::uint32_t rows : {2u, 10u}) {
      const Shares shares = draw(0.2, s, rows);
      std::printf("zipf %.1f, %u rows: multisite share %.4f (asked 0.2), remote rows at site 0 %.3f\n", s, rows,
                  shares.multisite, shares.remote_at_site0);
      CHECK(shares.multisite > 0.195 && shares.multisite < 0.205);  // 200 K draws: sd 0.0009
      if (s == 0.0) CHECK(shares.remote_at_site0 < 0.40);           // uniform: about a third
      if (s == 1.5) CHECK(shares.remote_at_site0 > 0.80);           // skewed: site 0 gets them
    }
  }
  CHECK(draw(0.0, 1.5, 10).multisite == 0.0);  // none asked: every row at home
  CHECK(draw(1.0, 1.5, 10).multisite == 1.0);  // all asked: every transaction spreads
  return test_summary("test_micro_multisite");
}
