// Silo-style OCC (OptimisticCc over OccSets, commit by TxnContext): reads copy and record TIDs,
// writes stay private until commit, validation catches a changed or locked read, inserts are
// locked in place, abort leaves the data as it was, TIDs grow; the broken mode (no validation)
// loses an update. Then real threads: writers move units between rows, readers sum every row;
// no committed reader may see a half-done transfer and the total and per-row counters stay exact.
#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "balance_rows.hpp"
#include "check.hpp"
#include "islands/cc/optimistic_cc.hpp"

using namespace islands;

namespace {

constexpr std::size_t kColumns = 3;  // [0] balance, [1] a counter of committed writes, [2] spare
constexpr std::int32_t kInitialBalance = 1000;

using Rows = islands_test::BalanceRows<kColumns, kInitialBalance>;

std::uint64_t tid_of(const Row* row) { return row->lock.load() & ~OptimisticCc::kLocked; }
bool locked(const Row* row) { return (row->lock.load() & OptimisticCc::kLocked) != 0; }

// Reads row r and writes row w (+1 to each column 0 of the image), validating; true if committed.
bool read_modify_write(const OptimisticCc& cc, TxnContext& txn, Row* r, Row* w, AbortReason& reason) {
  const Row* read = cc.open(r, LockMode::shared, txn, reason, 0, kColumns);
  Row* write = read ? cc.open(w, LockMode::exclusive, txn, reason, 0, kColumns) : nullptr;
  if (!write) {
    txn.abort();
    return false;
  }
  write->columns()[0] += 1;
  if (!cc.validate(txn, reason)) {
    txn.abort();
    return false;
  }
  txn.commit();
  return true;
}

void test_writes_are_private_until_commit() {
  Rows data(2);
  const OptimisticCc cc;
  TxnContext txn(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  const Row* image = cc.open(data.rows[0], LockMode::shared, txn, reason, 0, kColumns);
  CHECK(image != nullptr && image != data.rows[0]);
  CHECK(image->key == 0 && image->columns()[0] == kInitialBalance);
  CHECK(OptimisticCc::origin(const_cast<Row*>(image)) == data.rows[0]);
  Row* write = cc.open(data.rows[1], LockMode::exclusive, txn, reason, 0, kColumns);
  CHECK(write != nullptr && write != data.rows[1]);
  CHECK(cc.open(data.rows[1], LockMode::exclusive, txn, reason, 0, kColumns) == write);  // the same image
  write->columns()[0] = 7;
  CHECK(data.rows[1]->columns()[0] == kInitialBalance);  // buffered
  CHECK(cc.validate(txn, reason));
  CHECK(locked(data.rows[1]) && !locked(data.rows[0]));  // the write set only
  CHECK(data.rows[1]->columns()[0] == kInitialBalance);  // installed at commit, not validation
  txn.commit();
  CHECK(data.rows[1]->columns()[0] == 7 && !locked(data.rows[1]));
  const std::uint64_t first = tid_of(data.rows[1]);
  CHECK(first > 0 && tid_of(data.rows[0]) == 0);
  CHECK((first >> OptimisticCc::kEpochShift) > 0);  // an epoch in its high bits
  // A later commit that read that row gets a larger TID.
  CHECK(read_modify_write(cc, txn, data.rows[1], data.rows[0], reason));
  CHECK(tid_of(data.rows[0]) > first);
}

void test_a_changed_read_fails_validation_and_abort_changes_nothing() {
  Rows data(2);
  const OptimisticCc cc;
  TxnContext t1(kColumns), t2(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  CHECK(cc.open(data.rows[0], LockMode::shared, t1, reason, 0, kColumns) != nullptr);
  Row* w1 = cc.open(data.rows[1], LockMode::exclusive, t1, reason, 0, kColumns);
  w1->columns()[0] = 1;
  CHECK(read_modify_write(cc, t2, data.rows[1], data.rows[0], reason));  // t2 changes what t1 read
  const std::uint64_t tid0 = tid_of(data.rows[0]), tid1 = tid_of(data.rows[1]);
  CHECK(!cc.validate(t1, reason) && reason == AbortReason::occ_validation);
  t1.abort();
  CHECK(data.rows[1]->columns()[0] == kInitialBalance && data.rows[0]->columns()[0] == kInitialBalance + 1);
  CHECK(tid_of(data.rows[0]) == tid0 && tid_of(data.rows[1]) == tid1 && !locked(data.rows[0]) && !locked(data.rows[1]));
}

void test_a_read_locked_by_another_commit_fails() {
  Rows data(2);
  const OptimisticCc cc;
  TxnContext t1(kColumns), t2(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  CHECK(cc.open(data.rows[0], LockMode::shared, t1, reason, 0, kColumns) != nullptr);
  Row* w2 = cc.open(data.rows[0], LockMode::exclusive, t2, reason, 0, kColumns);
  w2->columns()[0] = 5;
  CHECK(cc.validate(t2, reason));  // t2 holds row 0 locked (a prepared 2PC part, say)
  CHECK(!cc.validate(t1, reason) && reason == AbortReason::occ_locked);
  t1.abort();
  reason = AbortReason::lock_conflict;
  CHECK(cc.open(data.rows[0], LockMode::shared, t1, reason, 0, kColumns) == nullptr);  // locked: waits, gives up
  CHECK(reason == AbortReason::occ_locked);
  t1.abort();
  // Writing a row another commit holds: validation's lock fails.
  CHECK(cc.open(data.rows[1], LockMode::exclusive, t1, reason, 0, kColumns) != nullptr);
  t2.abort();  // t2 gives up after all: row 0 unlocked, unchanged
  CHECK(!locked(data.rows[0]) && data.rows[0]->columns()[0] == kInitialBalance);
  CHECK(cc.validate(t1, reason));
  t1.commit();
}

void test_inserts_are_locked_in_place_until_commit() {
  Rows data(2);
  const OptimisticCc cc;
  TxnContext t1(kColumns), t2(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  Row* fresh = data.rows[1];
  CHECK(cc.insert(fresh, t1, reason));
  t1.inserted(fresh);
  fresh->columns()[0] = 42;  // in place
  CHECK(!cc.insert(fresh, t2, reason) && reason == AbortReason::occ_locked);
  CHECK(cc.open(fresh, LockMode::shared, t2, reason, 0, kColumns) == nullptr);
  t2.abort();
  CHECK(cc.validate(t1, reason));
  t1.commit();
  CHECK(!locked(fresh) && tid_of(fresh) > 0 && fresh->columns()[0] == 42 && !fresh->deleted());
  // An aborted insert is rolled back and its TID moves on, so a reader that copied it fails.
  const Row* seen = cc.open(fresh, LockMode::shared, t2, reason, 0, kColumns);
  CHECK(seen != nullptr);
  const std::uint64_t before = tid_of(fresh);
  CHECK(cc.insert(fresh, t1, reason));
  t1.inserted(fresh);
  t1.abort();
  CHECK(fresh->deleted() && !locked(fresh) && tid_of(fresh) == before + 1);
  CHECK(!cc.validate(t2, reason) && reason == AbortReason::occ_validation);
  t2.abort();
}

void test_skipping_validation_loses_an_update() {
  Rows data(1);
  OptimisticCc broken;
  broken.skip_validation = true;
  TxnContext t1(kColumns), t2(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  Row* a = broken.open(data.rows[0], LockMode::exclusive, t1, reason, 0, kColumns);
  Row* b = broken.open(data.rows[0], LockMode::exclusive, t2, reason, 0, kColumns);
  a->columns()[0] += 1;
  b->columns()[0] += 1;
  CHECK(broken.validate(t1, reason));
  t1.commit();
  CHECK(broken.validate(t2, reason));  // stale, but not checked
  t2.commit();
  CHECK(data.rows[0]->columns()[0] == kInitialBalance + 1);  // two increments, one survives
  // The real scheme refuses the second.
  const OptimisticCc cc;
  a = cc.open(data.rows[0], LockMode::exclusive, t1, reason, 0, kColumns);
  b = cc.open(data.rows[0], LockMode::exclusive, t2, reason, 0, kColumns);
  CHECK(cc.validate(t1, reason));
  t1.commit();
  CHECK(!cc.validate(t2, reason) && reason == AbortReason::occ_validation);
  t2.abort();
}

// Threads: writers move one unit between two random rows and count the write in column 1;
// readers read every row and check the total (only a committed, validated read counts).
constexpr int kRows = 4;
constexpr int kWriters = 3;
constexpr int kReaders = 1;
constexpr int kTransfersPerWriter = 4000;
constexpr int kReadsPerReader = 2000;

struct Shared {
  Rows data{kRows};
  std::atomic<std::uint64_t> bad_reads{0}, commits{0}, aborts{0}, wrong_reason{0};
  std::atomic<int> ready{0};
  void start_together() {
    ready.fetch_add(1);
    while (ready.load() < kWriters + kReaders) std::this_thread::yield();
  }
};

void writer(Shared& s, unsigned seed) {
  const OptimisticCc cc;
  std::mt19937 random(seed);
  TxnContext txn(kColumns);
  s.start_together();
  for (int n = 0; n < kTransfersPerWriter; ++n) {
    const int a = static_cast<int>(random() % kRows);
    const int b = (a + 1 + static_cast<int>(random() % (kRows - 1))) % kRows;
    for (;;) {
      AbortReason reason = AbortReason::lock_conflict;
      Row* x = cc.open(s.data.rows[a], LockMode::exclusive, txn, reason, 0, kColumns);
      Row* y = x ? cc.open(s.data.rows[b], LockMode::exclusive, txn, reason, 0, kColumns) : nullptr;
      if (y) {
        x->columns()[0] -= 1;
        x->columns()[1] += 1;
        y->columns()[0] += 1;
        y->columns()[1] += 1;
      }
      if (y && cc.validate(txn, reason)) {
        txn.commit();
        ++s.commits;
        break;
      }
      if (reason != AbortReason::occ_validation && reason != AbortReason::occ_locked) ++s.wrong_reason;
      txn.abort();
      ++s.aborts;
      std::this_thread::yield();
    }
  }
}

void reader(Shared& s) {
  const OptimisticCc cc;
  TxnContext txn(kColumns);
  s.start_together();
  for (int n = 0; n < kReadsPerReader;) {
    AbortReason reason = AbortReason::lock_conflict;
    std::int64_t total = 0;
    bool ok = true;
    for (int i = 0; i < kRows && ok; ++i) {
      const Row* image = cc.open(s.data.rows[i], LockMode::shared, txn, reason, 0, kColumns);
      ok = image != nullptr;
      if (ok) total += image->columns()[0];
    }
    if (ok && cc.validate(txn, reason)) {
      txn.commit();
      if (total != std::int64_t{kRows} * kInitialBalance) ++s.bad_reads;
      ++n;
    } else {
      txn.abort();
    }
  }
}

void test_threads_keep_the_invariants() {
  Shared s;
  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i) threads.emplace_back(writer, std::ref(s), 17u + static_cast<unsigned>(i));
  for (int i = 0; i < kReaders; ++i) threads.emplace_back(reader, std::ref(s));
  for (std::thread& t : threads) t.join();
  std::int64_t total = 0, writes = 0;
  for (const Row* row : s.data.rows) {
    total += row->columns()[0];
    writes += row->columns()[1];
    CHECK(!locked(row));
  }
  CHECK(s.bad_reads.load() == 0 && s.wrong_reason.load() == 0);
  CHECK(s.commits.load() == std::uint64_t{kWriters} * kTransfersPerWriter);
  CHECK(total == std::int64_t{kRows} * kInitialBalance);
  CHECK(writes == 2 * std::int64_t{kWriters} * kTransfersPerWriter);  // no update lost
}

}  // namespace

int main() {
  test_writes_are_private_until_commit();
  test_a_changed_read_fails_validation_and_abort_changes_nothing();
  test_a_read_locked_by_another_commit_fails();
  test_inserts_are_locked_in_place_until_commit();
  test_skipping_validation_loses_an_update();
  test_threads_keep_the_invariants();
  return test_summary("test_optimistic_cc");
}
