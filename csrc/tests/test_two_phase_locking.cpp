// Row-level 2PL (TwoPhaseLocking over RowLock words, locks released by TxnContext) with real
// threads, under both policies. Writers move units between two rows locked in random order (a
// deadlock under plain waiting) and bump a plain per-row counter; readers lock every row
// shared and check the total. Exclusive holders must be alone (the plain counters stay exact,
// no reader sees a half-done transfer), aborts must undo, wait-die must finish (no deadlock),
// and with real threads: shared holders coexist, an older requester waits, a younger one dies.
#include <algorithm>
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
constexpr int kRows = 3;
constexpr std::int32_t kInitialBalance = 1000;
constexpr int kWriters = 3;
constexpr int kReaders = 1;
constexpr int kTransfersPerWriter = 3000;
constexpr int kReadsPerReader = 1000;

using Rows = islands_test::BalanceRows<kColumns, kInitialBalance>;

struct Shared {
  Rows data{kRows};
  std::atomic<int> exclusive[kRows] = {};  // holders inside an exclusive section, per row
  std::atomic<std::uint64_t> next_ts{1};
  std::atomic<std::uint64_t> overlapping_exclusive{0};  // an exclusive holder found another holder
  std::atomic<std::uint64_t> bad_reads{0};              // a shared holder saw a half-done transfer
  std::atomic<std::uint64_t> wrong_reason{0};           // an abort reason the policy cannot give
  std::atomic<std::uint64_t> aborts{0};
  std::atomic<std::uint64_t> commits{0};
  std::atomic<int> ready{0};  // start line: all threads begin together, so they contend

  void start_together() {
    ready.fetch_add(1);
    while (ready.load() < kWriters + kReaders) std::this_thread::yield();
  }
};

// A little work inside a critical section, to widen the window another thread can hit.
void work() {
  for (int i = 0; i < 50; ++i) cpu_relax();
}

// Takes `mode` on row i; on success, in exclusive mode, registers as the row's holder.
bool lock(Shared& s, const TwoPhaseLocking& cc, TxnContext& txn, int i, LockMode mode) {
  AbortReason reason = AbortReason::lock_conflict;
  if (!cc.lock(s.data.rows[i], mode, txn, reason)) {
    const AbortReason expected =
        cc.policy == LockPolicy::no_wait ? AbortReason::lock_conflict : AbortReason::wait_die;
    if (reason != expected) ++s.wrong_reason;
    return false;
  }
  if (mode == LockMode::exclusive && s.exclusive[i].fetch_add(1) != 0) ++s.overlapping_exclusive;
  return true;
}

void writer(Shared& s, const TwoPhaseLocking cc, unsigned seed) {
  std::mt19937 random(seed);
  TxnContext txn(kColumns);
  s.start_together();
  for (int n = 0; n < kTransfersPerWriter; ++n) {
    const int a = static_cast<int>(random() % kRows);
    const int b = (a + 1 + static_cast<int>(random() % (kRows - 1))) % kRows;
    txn.begin(s.next_ts.fetch_add(1));  // retries keep it: wait-die ages a transaction
    for (;;) {
      std::vector<int> mine;
      bool ok = lock(s, cc, txn, a, LockMode::exclusive);
      if (ok) {
        mine.push_back(a);
        // Change the first row before asking for the second, so an abort has work to undo.
        txn.save_before_image(s.data.rows[a]);
        s.data.rows[a]->columns()[0] -= 1;
        s.data.rows[a]->columns()[1] += 1;
        work();
        ok = lock(s, cc, txn, b, LockMode::exclusive);
      }
      if (ok) {
        mine.push_back(b);
        txn.save_before_image(s.data.rows[b]);
        s.data.rows[b]->columns()[0] += 1;
        s.data.rows[b]->columns()[1] += 1;
        work();
      }
      for (int i : mine) s.exclusive[i].fetch_sub(1);
      if (ok) {
        txn.commit();
        ++s.commits;
        break;
      }
      txn.abort();
      ++s.aborts;
      std::this_thread::yield();
    }
  }
}

void reader(Shared& s, const TwoPhaseLocking cc, unsigned seed) {
  std::mt19937 random(seed);
  TxnContext txn(kColumns);
  s.start_together();
  for (int n = 0; n < kReadsPerReader; ++n) {
    txn.begin(s.next_ts.fetch_add(1));
    for (;;) {
      int order[kRows];
      for (int i = 0; i < kRows; ++i) order[i] = i;
      std::shuffle(order, order + kRows, random);
      bool ok = true;
      for (int i = 0; i < kRows && ok; ++i) ok = lock(s, cc, txn, order[i], LockMode::shared);
      if (ok) {
        std::int64_t total = 0;
        for (int i = 0; i < kRows; ++i) {
          if (s.exclusive[i].load() != 0) ++s.bad_reads;
          total += s.data.rows[i]->columns()[0];
        }
        if (total != std::int64_t{kRows} * kInitialBalance) ++s.bad_reads;
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
  const TwoPhaseLocking cc{{}, policy};
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) threads.emplace_back(writer, std::ref(s), cc, 17u + t);
  for (int t = 0; t < kReaders; ++t) threads.emplace_back(reader, std::ref(s), cc, 91u + t);
  for (auto& t : threads) t.join();  // wait-die: finishing at all means no deadlock

  std::int64_t balance = 0, writes = 0;
  for (Row* row : s.data.rows) {
    balance += row->columns()[0];
    writes += row->columns()[1];
    CHECK(row->lock.load() == 0);
  }
  CHECK(s.overlapping_exclusive.load() == 0);
  CHECK(s.bad_reads.load() == 0);
  CHECK(s.wrong_reason.load() == 0);
  CHECK(s.commits.load() == std::uint64_t{kWriters} * kTransfersPerWriter);
  CHECK(balance == std::int64_t{kRows} * kInitialBalance);
  CHECK(writes == 2 * std::int64_t{kWriters} * kTransfersPerWriter);
  std::printf("two_phase_locking %s: %llu aborts\n", enum_name(policy),
              static_cast<unsigned long long>(s.aborts.load()));
}

// Shared holders coexist: a second thread gets a shared lock while the first holds one, and
// exclusive requests fail meanwhile.
void shared_coexist(LockPolicy policy) {
  Rows data(1);
  Row* row = data.rows[0];
  const TwoPhaseLocking cc{{}, policy};
  std::atomic<int> stage{0};
  std::atomic<bool> second_got{false};
  std::thread first([&] {
    TxnContext txn(kColumns);
    txn.begin(5);
    AbortReason reason;
    CHECK(cc.lock(row, LockMode::shared, txn, reason));
    stage = 1;
    while (stage.load() != 2) std::this_thread::yield();  // hold until the second has its lock
    txn.commit();
  });
  std::thread second([&] {
    while (stage.load() != 1) std::this_thread::yield();
    TxnContext txn(kColumns);
    txn.begin(7);
    AbortReason reason;
    second_got = cc.lock(row, LockMode::shared, txn, reason);
    // Both hold it: a younger exclusive request fails at once under either policy.
    TxnContext writer_txn(kColumns);
    writer_txn.begin(9);
    CHECK(!cc.lock(row, LockMode::exclusive, writer_txn, reason));
    CHECK(reason == (policy == LockPolicy::no_wait ? AbortReason::lock_conflict : AbortReason::wait_die));
    CHECK(((row->lock.load() & RowLock::kReaderMask) >> 48) == 2);
    stage = 2;
    txn.commit();
  });
  first.join();
  second.join();
  CHECK(second_got.load());
  CHECK(row->lock.load() == 0);
}

// Wait-die with real threads: a younger requester dies at once while an older one waits for
// the holder and gets the lock only after the holder released it.
void older_waits_younger_dies() {
  Rows data(1);
  Row* row = data.rows[0];
  const TwoPhaseLocking cc{{}, LockPolicy::wait_die};
  TxnContext holder(kColumns);
  holder.begin(50);
  AbortReason reason;
  CHECK(cc.lock(row, LockMode::exclusive, holder, reason));

  bool younger_got = true;
  AbortReason younger_reason = AbortReason::lock_conflict;
  std::thread younger([&] {
    TxnContext txn(kColumns);
    txn.begin(60);
    younger_got = cc.lock(row, LockMode::exclusive, txn, younger_reason);
  });
  younger.join();  // returns while the lock is still held: it died rather than waited
  CHECK(!younger_got);
  CHECK(younger_reason == AbortReason::wait_die);

  std::atomic<bool> started{false}, released{false};
  bool older_got = false, saw_released = false;
  std::thread older([&] {
    TxnContext txn(kColumns);
    txn.begin(10);
    started = true;
    AbortReason r;
    older_got = cc.lock(row, LockMode::exclusive, txn, r);
    saw_released = released.load();  // it must not have got the lock before the release
    txn.commit();
  });
  while (!started.load()) std::this_thread::yield();
  for (int i = 0; i < 100; ++i) std::this_thread::yield();  // let it reach the wait (any order is correct)
  released = true;
  holder.commit();
  older.join();
  CHECK(older_got);
  CHECK(saw_released);
  CHECK(row->lock.load() == 0);
}

}  // namespace

int main() {
  for (LockPolicy policy : {LockPolicy::no_wait, LockPolicy::wait_die}) {
    contention(policy);
    shared_coexist(policy);
  }
  older_waits_younger_dies();
  return test_summary("two_phase_locking");
}
