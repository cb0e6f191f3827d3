// The system structures (exec/system_structures.hpp, exec/system_access.hpp): the two layouts
// (centralized, per socket) give each worker the part they should; the cross-socket test mode
// counts exactly the accesses to another socket's part (none per socket, four per transaction
// from a worker off socket 0 when centralized); the active list links, unlinks and reports its
// oldest transaction; and, with worker threads running transactions under randomized pauses
// while another thread quiesces again and again, no transaction ever runs while the lock is
// held exclusively and the active lists are then empty.
#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/exec/system_access.hpp"
#include "islands/exec/system_structures.hpp"
#include "islands/txn/active_txn_list.hpp"

using namespace islands;

namespace {

void layouts() {
  const std::vector<std::uint32_t> sockets = {0, 0, 1, 3};
  SystemStructures central(SystemStructuresKind::centralized, sockets);
  CHECK(central.parts() == 1);
  for (std::size_t w = 0; w < sockets.size(); ++w) CHECK(&central.part_of(w) == &central.part_of(0));
  SystemStructures per_socket(SystemStructuresKind::per_socket, sockets);
  CHECK(per_socket.parts() == 4);
  for (std::size_t w = 0; w < sockets.size(); ++w) CHECK(per_socket.part_of(w).socket == sockets[w]);
  CHECK(&per_socket.part_of(0) == &per_socket.part_of(1));
  CHECK(&per_socket.part_of(1) != &per_socket.part_of(2));
  SystemStructures unplanned(SystemStructuresKind::per_socket, {});  // no sockets known: all on socket 0
  CHECK(unplanned.parts() == 1 && unplanned.socket_of(5) == 0);
}

// One transaction through `access`: hold, begin, end.
void one_txn(SystemAccess& access, std::uint64_t tick) {
  access.hold([] { cpu_relax(); });
  access.begin(tick);
  access.end();
}

void cross_socket_counts() {
  const std::vector<std::uint32_t> sockets = {0, 1, 1, 2};
  for (SystemStructuresKind kind : {SystemStructuresKind::centralized, SystemStructuresKind::per_socket}) {
    SystemStructures structures(kind, sockets);
    std::vector<std::uint64_t> counts(sockets.size(), 0);
    for (std::size_t w = 0; w < sockets.size(); ++w) {
      SystemAccess access(structures, w, &counts[w], 0);
      CHECK(access.remote() == (kind == SystemStructuresKind::centralized && sockets[w] != 0));
      for (int i = 0; i < 10; ++i) one_txn(access, 100 + i);
      access.hold([] {});
      access.release();
    }
    for (std::size_t w = 0; w < sockets.size(); ++w) {
      const bool remote = kind == SystemStructuresKind::centralized && sockets[w] != 0;
      CHECK(counts[w] == (remote ? 10u * 4u + 2u : 0u));
    }
    CHECK(structures.active() == 0);
  }
  // Not counted without a counter, and a delay is spent only where the access is remote.
  SystemStructures structures(SystemStructuresKind::centralized, sockets);
  SystemAccess quiet(structures, 1, nullptr, 1000);
  one_txn(quiet, 1);
  CHECK(structures.active() == 0);
}

void active_list() {
  ActiveTxnList list;
  ActiveTxn a, b, c;
  CHECK(list.oldest_begin() == ActiveTxnList::kNone && list.size() == 0);
  list.add(a, 30);
  list.add(b, 10);
  list.add(c, 20);
  CHECK(list.size() == 3 && list.oldest_begin() == 10);
  list.remove(b);  // the middle
  CHECK(list.size() == 2 && list.oldest_begin() == 20);
  list.remove(a);  // the head
  CHECK(list.size() == 1 && list.oldest_begin() == 20);
  list.add(b, 5);
  list.remove(b);  // the tail
  list.remove(c);
  CHECK(list.size() == 0 && list.oldest_begin() == ActiveTxnList::kNone);
}

// A quiesce gives up when told to while a holder stays; the lock works again after resume.
void give_up() {
  SystemStructures structures(SystemStructuresKind::per_socket, {0, 1});
  SystemAccess holder(structures, 1, nullptr, 0);
  holder.hold([] {});
  int asked = 0;
  CHECK(!structures.quiesce([&] { return ++asked > 100; }));
  structures.resume();
  holder.release();
  CHECK(structures.quiesce([] { return false; }));
  structures.resume();
  SystemAccess again(structures, 0, nullptr, 0);
  one_txn(again, 7);
}

void exclusion(SystemStructuresKind kind, const std::vector<std::uint32_t>& sockets, unsigned seed) {
  SystemStructures structures(kind, sockets);
  std::atomic<bool> exclusive{false}, stop{false};
  std::atomic<int> overlaps{0}, active_under_exclusive{0};
  std::atomic<std::uint64_t> txns{0};
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < sockets.size(); ++w) {
    threads.emplace_back([&, w] {
      std::mt19937_64 rng(seed * 100 + w);
      SystemAccess access(structures, w, nullptr, 0);
      while (!stop.load()) {
        access.hold([] { cpu_relax(); });
        access.begin(rng() % 1000 + 1);
        if (exclusive.load()) overlaps.fetch_add(1);
        const std::uint64_t spins = rng() % 200;
        for (std::uint64_t i = 0; i < spins; ++i) cpu_relax();
        if (rng() % 32 == 0) std::this_thread::yield();
        if (exclusive.load()) overlaps.fetch_add(1);
        access.end();
        txns.fetch_add(1);
      }
    });
  }
  for (int round = 0; round < 60; ++round) {
    CHECK(structures.quiesce([] { return false; }));
    exclusive.store(true);
    if (structures.active() != 0 || structures.oldest_begin() != ActiveTxnList::kNone) active_under_exclusive.fetch_add(1);
    for (int i = 0; i < 50; ++i) cpu_relax();
    exclusive.store(false);
    structures.resume();
    // Let the workers run a transaction between two quiesces.
    const std::uint64_t before = txns.load();
    for (int i = 0; i < 100000 && txns.load() == before; ++i) std::this_thread::yield();
  }
  stop.store(true);
  for (std::thread& t : threads) t.join();
  CHECK(overlaps.load() == 0);
  CHECK(active_under_exclusive.load() == 0);
  CHECK(txns.load() > 0);
  CHECK(structures.active() == 0);
}

}  // namespace

int main() {
  layouts();
  cross_socket_counts();
  active_list();
  give_up();
  for (unsigned seed = 1; seed <= 2; ++seed) {
    exclusion(SystemStructuresKind::centralized, {0, 1, 1}, seed);
    exclusion(SystemStructuresKind::per_socket, {0, 1, 1}, seed);
    exclusion(SystemStructuresKind::per_socket, {0, 2, 3, 3}, seed);
  }
  return test_summary("test_system_structures");
}
