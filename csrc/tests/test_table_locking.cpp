// Table-level 2PL (TableLocking: one RowLock-format word per table, held by TxnContext) with
// real threads, under both policies: writers move units between a row of table 0 and a row of
// table 1 (locked in random order) and bump plain counters; readers lock both tables shared
// and check the total. Exclusive holders must be alone per table, aborts undo, wait-die ends.
// Then, single-threaded: a table is locked once per mode however many rows are touched, a
// sole reader upgrades and a shared one cannot, read committed's statement end releases the
// shared holds only, and history recording sees each granted access.
#include <atomic>
#include <cstdint>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include "balance_rows.hpp"
#include "check.hpp"
#include "islands/cc/concurrency_control.hpp"

using namespace islands;

namespace {

constexpr std::size_t kColumns = 2;  // [0] balance, [1] a plain counter of committed writes
constexpr std::int32_t kInitialBalance = 1000;
constexpr int kWriters = 3;
constexpr int kTransfersPerWriter = 3000;
constexpr int kReadsPerReader = 1000;

using Rows = islands_test::BalanceRows<kColumns, kInitialBalance>;

struct Shared {
  Rows data{2};  // row t lives in table t
  std::atomic<int> inside[2] = {};  // exclusive holders of each table inside their section
  std::atomic<std::uint64_t> next_ts{1}, overlapping{0}, bad_reads{0}, aborts{0};
  std::atomic<int> ready{0};
  void start_together() {
    ready.fetch_add(1);
    while (ready.load() < kWriters + 1) std::this_thread::yield();
  }
};

void writer(Shared& s, const TableLocking cc, unsigned seed) {
  std::mt19937 random(seed);
  TxnContext txn(kColumns);
  s.start_together();
  for (int n = 0; n < kTransfersPerWriter; ++n) {
    const int a = static_cast<int>(random() % 2), b = 1 - a;
    txn.begin(s.next_ts.fetch_add(1));
    for (;;) {
      AbortReason reason;
      std::vector<int> mine;
      bool ok = cc.lock(s.data.rows[a], LockMode::exclusive, txn, reason, static_cast<std::uint32_t>(a));
      if (ok) {
        if (s.inside[a].fetch_add(1) != 0) ++s.overlapping;
        mine.push_back(a);
        txn.save_before_image(s.data.rows[a]);
        s.data.rows[a]->columns()[0] -= 1;
        for (int i = 0; i < 200; ++i) cpu_relax();  // widen the window another thread can hit
        ok = cc.lock(s.data.rows[b], LockMode::exclusive, txn, reason, static_cast<std::uint32_t>(b));
      }
      if (ok) {
        if (s.inside[b].fetch_add(1) != 0) ++s.overlapping;
        mine.push_back(b);
        txn.save_before_image(s.data.rows[b]);
        s.data.rows[b]->columns()[0] += 1;
        s.data.rows[b]->columns()[1] += 1;
      }
      for (int i : mine) s.inside[i].fetch_sub(1);
      if (ok) {
        txn.commit();
        break;
      }
      txn.abort();
      ++s.aborts;
      std::this_thread::yield();
    }
  }
}

void reader(Shared& s, const TableLocking cc) {
  TxnContext txn(kColumns);
  s.start_together();
  for (int n = 0; n < kReadsPerReader; ++n) {
    txn.begin(s.next_ts.fetch_add(1));
    for (;;) {
      AbortReason reason;
      const bool ok = cc.lock(s.data.rows[1], LockMode::shared, txn, reason, 1) &&
                      cc.lock(s.data.rows[0], LockMode::shared, txn, reason, 0);
      if (ok) {
        if (s.inside[0].load() || s.inside[1].load()) ++s.bad_reads;
        if (s.data.rows[0]->columns()[0] + s.data.rows[1]->columns()[0] != 2 * kInitialBalance) ++s.bad_reads;
        txn.commit();
        break;
      }
      txn.abort();
      ++s.aborts;
      std::this_thread::yield();
    }
  }
}

void contention(LockPolicy policy) {
  Shared s;
  TableLocking cc;
  cc.policy = policy;
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) threads.emplace_back(writer, std::ref(s), cc, 17u + t);
  threads.emplace_back(reader, std::ref(s), cc);
  for (auto& t : threads) t.join();
  CHECK(s.overlapping.load() == 0);
  CHECK(s.bad_reads.load() == 0);
  CHECK(s.data.rows[0]->columns()[0] + s.data.rows[1]->columns()[0] == 2 * kInitialBalance);
  CHECK(s.data.rows[0]->columns()[1] + s.data.rows[1]->columns()[1] == kWriters * kTransfersPerWriter);
  for (const auto& word : cc.words->tables) CHECK(word.word.load() == 0);
  for (Row* row : s.data.rows) CHECK(row->lock.load() == 0);  // row words untouched
  std::printf("table_locking %s: %llu aborts\n", enum_name(policy), static_cast<unsigned long long>(s.aborts.load()));
}

void once_per_table_upgrade_and_statement_end() {
  Rows data(3);
  TableLocking cc;
  cc.policy = LockPolicy::no_wait;
  cc.isolation = IsolationLevel::read_committed;
  std::atomic<std::uint64_t>& t0 = cc.words->tables[0].word;
  std::atomic<std::uint64_t>& t1 = cc.words->tables[1].word;
  TxnContext a(kColumns), b(kColumns);
  a.begin(1);
  b.begin(2);
  AbortReason reason;
  // Many rows of one table: one hold.
  CHECK(cc.lock(data.rows[0], LockMode::shared, a, reason, 0));
  CHECK(cc.lock(data.rows[1], LockMode::shared, a, reason, 0));
  CHECK(a.locks_held() == 1);
  // The sole reader upgrades; the hold is then exclusive (released as such).
  CHECK(cc.lock(data.rows[0], LockMode::exclusive, a, reason, 0));
  CHECK(a.locks_held() == 1 && (t0.load() & RowLock::kExclusive));
  CHECK(!cc.lock(data.rows[2], LockMode::shared, b, reason, 0) && reason == AbortReason::lock_conflict);
  // Two readers: neither can upgrade.
  CHECK(cc.lock(data.rows[2], LockMode::shared, a, reason, 1));
  CHECK(cc.lock(data.rows[2], LockMode::shared, b, reason, 1));
  CHECK(!cc.lock(data.rows[2], LockMode::exclusive, b, reason, 1) && reason == AbortReason::lock_conflict);
  // Read committed: a statement's end lets the shared holds go, the exclusive one stays.
  cc.end_statement(a);
  CHECK(a.locks_held() == 1 && (t0.load() & RowLock::kExclusive));
  CHECK(((t1.load() & RowLock::kReaderMask) >> 48) == 1);
  cc.end_statement(b);
  CHECK(t1.load() == 0);
  // Serializable keeps them to the end.
  TableLocking serial = cc;
  serial.isolation = IsolationLevel::serializable;
  CHECK(serial.lock(data.rows[2], LockMode::shared, b, reason, 1));
  serial.end_statement(b);
  CHECK(t1.load() != 0);
  b.commit();
  a.commit();
  CHECK(t0.load() == 0 && t1.load() == 0);
}

void history_sees_granted_accesses() {
  Rows data(2);
  TableLocking cc;
  VersionMap versions;
  HistorySink sink;
  TxnContext txn(kColumns);
  txn.record_history(versions, sink);
  txn.begin(1);
  txn.history()->begin(77);
  AbortReason reason;
  CHECK(cc.lock(data.rows[0], LockMode::shared, txn, reason, 0));
  CHECK(cc.lock(data.rows[1], LockMode::exclusive, txn, reason, 1));
  CHECK(versions.get(data.rows[1]) == 77);  // installed at the lock (eager)
  txn.abort();
  CHECK(versions.get(data.rows[1]) == 0);  // and put back
  CHECK(sink.parts.empty() && sink.reads.empty() && sink.writes.empty());
  txn.history()->begin(78);
  CHECK(cc.lock(data.rows[1], LockMode::exclusive, txn, reason, 1));
  txn.commit();
  const std::vector<std::uint64_t> part = {78, 1, 0, 1};
  const std::vector<std::uint64_t> write = {reinterpret_cast<std::uintptr_t>(data.rows[1]), 0};
  CHECK(sink.parts == part && sink.reads.empty() && sink.writes == write);
  CHECK(versions.get(data.rows[1]) == 78);
}

}  // namespace

int main() {
  for (LockPolicy policy : {LockPolicy::no_wait, LockPolicy::wait_die}) contention(policy);
  once_per_table_upgrade_and_statement_end();
  history_sees_granted_accesses();
  return test_summary("table_locking");
}
