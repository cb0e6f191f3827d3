// Tables routed apart under PLP (engine.plp_units = per_table; exec/routing_unit.hpp):
// the first placements of 002 Fig 6 (exec/plp/plp_placement.hpp), TATP's operations per table and
// their units, the index roots of their keys, and route_split's cut of a two-table
// transaction over (table, unit) owners: together under naive and atrapos on one socket,
// apart under workload_aware.
#include <cstdint>
#include <set>
#include <vector>

#include "check.hpp"
#include "islands/common/random.hpp"
#include "islands/exec/plp/plp_placement.hpp"
#include "islands/exec/plp/plp_routing.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/workload/tatp_workload.hpp"

using namespace islands;

namespace {

constexpr std::size_t kTables = 4, kWorkers = 4;
constexpr std::uint64_t kUsed = 0b0101;  // Subscriber and Special_Facility (UpdateSubscriberData)
const std::vector<std::uint32_t> kSockets = {0, 0, 1, 1};

std::uint32_t owner_of(const std::vector<std::uint32_t>& owner, std::size_t site, std::size_t table, std::size_t sub) {
  return owner[routing_unit(site, sub, kUnitsPerSite, table, kTables)];
}

void placements() {
  const auto naive = plp_placement(PlpPlacementKind::naive, kWorkers, kWorkers, kTables, kUsed, kSockets);
  const auto aware = plp_placement(PlpPlacementKind::workload_aware, kWorkers, kWorkers, kTables, kUsed, kSockets);
  const auto atrapos = plp_placement(PlpPlacementKind::atrapos, kWorkers, kWorkers, kTables, kUsed, kSockets);
  CHECK(naive.size() == kWorkers * kTables * kUnitsPerSite);
  std::set<std::uint32_t> aware_used, atrapos_used;
  for (std::size_t site = 0; site < kWorkers; ++site) {
    for (std::size_t sub = 0; sub < kUnitsPerSite; ++sub) {
      for (std::size_t t = 0; t < kTables; ++t) CHECK(owner_of(naive, site, t, sub) == site);
      // unused tables stay naive
      CHECK(owner_of(aware, site, 1, sub) == site && owner_of(aware, site, 3, sub) == site);
      CHECK(owner_of(atrapos, site, 1, sub) == site && owner_of(atrapos, site, 3, sub) == site);
      const std::uint32_t a0 = owner_of(aware, site, 0, sub), a2 = owner_of(aware, site, 2, sub);
      const std::uint32_t s0 = owner_of(atrapos, site, 0, sub), s2 = owner_of(atrapos, site, 2, sub);
      // one partition per core: two chunks per table; A's on workers 0-1, B's on 2-3
      CHECK(a0 == site / 2 && a2 == 2 + site / 2);
      CHECK(kSockets[a0] != kSockets[a2]);  // dependent partitions on different sockets
      CHECK(a0 != a2 && s0 != s2);
      CHECK(kSockets[s0] == kSockets[s2]);  // ATraPos: on one socket
      aware_used.insert({a0, a2});
      atrapos_used.insert({s0, s2});
    }
  }
  CHECK(aware_used.size() == kWorkers && atrapos_used.size() == kWorkers);  // every core holds a partition
  // two workers, one per socket: both placements put A on one and B on the other
  const std::vector<std::uint32_t> two = {0, 1};
  CHECK(plp_placement(PlpPlacementKind::workload_aware, 2, 2, kTables, kUsed, two) ==
        plp_placement(PlpPlacementKind::atrapos, 2, 2, kTables, kUsed, two));
  // shared units: every placement is naive
  for (std::uint32_t w : plp_placement(PlpPlacementKind::atrapos, 2, 2, 1, 1, two)) CHECK(w < 2);
}

TatpWorkload<HashIndex> per_table_tatp(const char* mix) {
  EngineConfig engine;
  engine.execution = ExecutionKind::plp;
  engine.plp_units = PlpUnitsKind::per_table;
  TatpConfig tatp;
  tatp.subscribers_per_site = 997;
  tatp.mix = mix;
  return TatpWorkload<HashIndex>(tatp, engine, kWorkers, 0, kWorkers);
}

// Every operation's unit is its table's unit of its subscriber, and the index root of every
// key that operation touches.
void operations_and_roots() {
  auto tatp = per_table_tatp("standard");
  CHECK(tatp.routing_tables() == kTables);
  CHECK(tatp.used_routing_tables() == 0b1111);
  CHECK(per_table_tatp("update_subscriber_data").used_routing_tables() == kUsed);
  const TatpWorkload<HashIndex>::Roots roots{ReciprocalDivider(997), 0, kTables};
  Random rng(3);
  TatpWorkload<HashIndex>::Txn txn;
  std::set<std::uint64_t> tables_seen;
  for (int i = 0; i < 20000; ++i) {
    tatp.generate(txn, rng, rng.below(kWorkers));
    std::size_t ops = 0;
    for (std::size_t at = 0; at < txn.words.size(); ++ops) {
      const auto op = tatp.locate(txn.words.data(), txn.words.size(), at);
      const std::uint64_t header = txn.words[at], type = header & 0xff, table = (header >> 8) & 0xff;
      CHECK(type == txn.words[0] % 256 && op.first == ((header >> 16) & 0xff) && op.first >= 2);
      CHECK(table_of_unit(op.second, kTables) == table);
      tables_seen.insert(table);
      const bool by_nbr = table == 0 && type >= 4;
      const std::uint64_t s = by_nbr ? txn.words[at + 1] ^ 0x5a5a5a5aULL : txn.words[at + 1];
      CHECK(site_of_unit(op.second, kTables) == s / 997);
      const std::uint64_t tag = table == 0 ? 1 : table == 1 ? 3 : table == 2 ? 4 : 5;
      CHECK(roots((tag << 56) | (s << 8) | 7) == op.second);
      if (table == 0) CHECK(roots((std::uint64_t{2} << 56) | ((s ^ 0x5a5a5a5aULL) << 8)) == op.second);
      at += op.first;
    }
    const std::uint64_t type = txn.words[0] & 0xff;
    CHECK(ops == (type == 3 || type == 1 || type == 6 ? 2u : type == 5 ? 3u : 1u));
    CHECK(tatp.type_of(txn) == type);
  }
  CHECK(tables_seen.size() == kTables);
}

// route_split over (table, unit) owners: UpdateSubscriberData's two operations meet one owner
// under naive, two owners on one socket under atrapos, two on different sockets under
// workload_aware; every operation lands in exactly one part.
void splits() {
  auto tatp = per_table_tatp("update_subscriber_data");
  const std::size_t units = kWorkers * kTables * kUnitsPerSite;
  std::vector<TxnPart> parts(kWorkers);
  for (PlpPlacementKind kind : {PlpPlacementKind::naive, PlpPlacementKind::workload_aware, PlpPlacementKind::atrapos}) {
    PlpRoute route;
    route.owner = plp_placement(kind, kWorkers, kWorkers, kTables, kUsed, kSockets);
    CHECK(route.owner.size() == units);
    Random rng(9);
    TatpWorkload<HashIndex>::Txn txn;
    for (int i = 0; i < 2000; ++i) {
      tatp.generate(txn, rng, rng.below(kWorkers));
      CHECK(route_split(tatp, txn, route, 0, parts, kTables));
      std::vector<std::uint32_t> owners;
      std::size_t words = 0;
      for (std::uint32_t w = 0; w < kWorkers; ++w) {
        if (parts[w].empty()) continue;
        owners.push_back(w);
        words += parts[w].words.size();
        CHECK(parts[w].site == txn.words[1] / 997);
      }
      CHECK(words == txn.words.size());
      if (kind == PlpPlacementKind::naive) {
        CHECK(owners.size() == 1);
      } else {
        CHECK(owners.size() == 2);
        const bool same_socket = kSockets[owners[0]] == kSockets[owners[1]];
        CHECK(same_socket == (kind == PlpPlacementKind::atrapos));
      }
    }
    route.owner[routing_unit(0, 0, kUnitsPerSite, 2, kTables)] = PlpRoute::kFrozen;  // SF's first unit frozen
    bool refused = false;
    for (int i = 0; i < 4000 && !refused; ++i) {
      tatp.generate(txn, rng, 0);
      refused = !route_split(tatp, txn, route, 0, parts, kTables);
    }
    CHECK(refused);
  }
}

// engine.plp_workers_per_cpu = 2 (workers 2c and 2c + 1 on CPU c, a site each) with naive:
// every UpdateSubscriberData meets exactly the two workers of its site's CPU, its Subscriber
// operation on the first, its SpecialFacility operation on the second.
void oversaturated() {
  auto tatp = per_table_tatp("update_subscriber_data");
  std::vector<TxnPart> parts(kWorkers);
  PlpRoute route;
  route.owner = plp_placement(PlpPlacementKind::naive, kWorkers, kWorkers, kTables, kUsed, kSockets, 2);
  for (std::size_t site = 0; site < kWorkers; ++site) {
    for (std::size_t sub = 0; sub < kUnitsPerSite; ++sub) {
      CHECK(owner_of(route.owner, site, 0, sub) == site / 2 * 2);
      CHECK(owner_of(route.owner, site, 2, sub) == site / 2 * 2 + 1);
      CHECK(owner_of(route.owner, site, 1, sub) == site && owner_of(route.owner, site, 3, sub) == site);
    }
  }
  Random rng(11);
  TatpWorkload<HashIndex>::Txn txn;
  for (int i = 0; i < 2000; ++i) {
    const std::uint32_t home = static_cast<std::uint32_t>(rng.below(kWorkers));
    tatp.generate(txn, rng, home);
    CHECK(route_split(tatp, txn, route, 0, parts, kTables));
    std::vector<std::uint32_t> owners;
    for (std::uint32_t w = 0; w < kWorkers; ++w) {
      if (!parts[w].empty()) owners.push_back(w);
    }
    CHECK(owners.size() == 2 && owners[0] / 2 == owners[1] / 2 && owners[0] % 2 == 0);
  }
  // one worker per CPU, or shared units: naive as before
  CHECK(plp_placement(PlpPlacementKind::naive, kWorkers, kWorkers, kTables, kUsed, kSockets, 1) ==
        plp_placement(PlpPlacementKind::naive, kWorkers, kWorkers, kTables, kUsed, kSockets));
  CHECK(plp_placement(PlpPlacementKind::naive, kWorkers, kWorkers, 1, 1, kSockets, 2) ==
        plp_placement(PlpPlacementKind::naive, kWorkers, kWorkers, 1, 1, kSockets));
}

}  // namespace

int main() {
  placements();
  operations_and_roots();
  splits();
  oversaturated();
  return test_summary("test_plp_placement");
}
