// Snapshot isolation (MultiVersionCc over SnapshotTxn, VersionStore, SnapshotClock): version
// chains newest first, reads see the newest version at or before their snapshot, writes are
// private until commit, first committer wins (and the broken mode loses an update), write skew
// is allowed, inserts are absent from older snapshots, garbage collection keeps the store
// bounded by what open snapshots can read. Then real threads: writers move units between rows,
// readers sum every row in one snapshot; every sum is exact and no update is lost.
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "balance_rows.hpp"
#include "check.hpp"
#include "islands/cc/multi_version_cc.hpp"

using namespace islands;

namespace {

constexpr std::size_t kColumns = 3;  // [0] balance, [1] committed writes, [2] spare
constexpr std::int32_t kInitialBalance = 1000;

using Rows = islands_test::BalanceRows<kColumns, kInitialBalance>;

std::uint64_t ts_of(const Row* row) { return row->lock.load() & MultiVersionCc::kTsMask; }

// Reads the balance of `row` in the context's snapshot, or -1 when the read failed.
std::int64_t read(const MultiVersionCc& cc, TxnContext& txn, Row* row, AbortReason& reason) {
  const Row* image = cc.open(row, LockMode::shared, txn, reason, 0, kColumns);
  return image ? image->columns()[0] : -1;
}

// Adds `delta` to row's balance (and counts the write); false when open failed.
bool add(const MultiVersionCc& cc, TxnContext& txn, Row* row, std::int32_t delta, AbortReason& reason) {
  Row* image = cc.open(row, LockMode::exclusive, txn, reason, 0, kColumns);
  if (!image) return false;
  image->columns()[0] += delta;
  image->columns()[1] += 1;
  return true;
}

// Prunes the whole version store to what open snapshots can read.
void sweep_all(const MultiVersionCc& cc) {
  std::vector<std::uint64_t> reads;
  cc.state->clock.horizon(reads);
  cc.state->versions.sweep_all(reads, [](const Row* row) { return ts_of(row); });
}

// Validates and commits, or aborts; true if committed.
bool finish(const MultiVersionCc& cc, TxnContext& txn, AbortReason& reason) {
  if (!cc.validate(txn, reason)) {
    txn.abort();
    return false;
  }
  txn.commit();
  return true;
}

void test_reads_see_their_snapshot_through_the_chain() {
  Rows data(1);
  const MultiVersionCc cc;
  TxnContext old_reader(kColumns), writer(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  CHECK(read(cc, old_reader, data.rows[0], reason) == kInitialBalance);  // snapshot at 0
  for (int i = 1; i <= 3; ++i) {
    CHECK(add(cc, writer, data.rows[0], 10, reason));
    CHECK(finish(cc, writer, reason));
    CHECK(ts_of(data.rows[0]) == static_cast<std::uint64_t>(i));  // commit timestamps count up
  }
  CHECK(data.rows[0]->columns()[0] == kInitialBalance + 30);  // the row holds the newest
  CHECK(read(cc, old_reader, data.rows[0], reason) == kInitialBalance);  // the old one, from the chain
  const VersionStore::Stats held = cc.state->versions.stats();
  CHECK(held.created == 3 && held.live >= 1 && held.chains == 1);
  TxnContext fresh(kColumns);
  CHECK(read(cc, fresh, data.rows[0], reason) == kInitialBalance + 30);
  old_reader.commit();
  fresh.commit();
  // No snapshot open: a full sweep leaves nothing.
  sweep_all(cc);
  const VersionStore::Stats after = cc.state->versions.stats();
  CHECK(after.live == 0 && after.bytes == 0 && after.chains == 0 && after.reclaimed == 3);
}

void test_writes_are_private_until_commit_and_abort_leaves_nothing() {
  Rows data(1);
  const MultiVersionCc cc;
  TxnContext writer(kColumns), reader(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  CHECK(add(cc, writer, data.rows[0], 5, reason));
  CHECK(data.rows[0]->columns()[0] == kInitialBalance);
  CHECK(read(cc, writer, data.rows[0], reason) == kInitialBalance + 5);  // its own write
  CHECK(read(cc, reader, data.rows[0], reason) == kInitialBalance);
  reader.commit();
  writer.abort();
  CHECK(data.rows[0]->columns()[0] == kInitialBalance && data.rows[0]->lock.load() == 0);
  CHECK(cc.state->clock.now() == 0);  // an abort takes no timestamp
}

void test_first_committer_wins() {
  Rows data(1);
  const MultiVersionCc cc;
  TxnContext a(kColumns), b(kColumns), late(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  CHECK(add(cc, a, data.rows[0], 1, reason));
  CHECK(add(cc, b, data.rows[0], 1, reason));  // both from the same version
  CHECK(read(cc, late, data.rows[0], reason) == kInitialBalance);  // a snapshot before either commits
  CHECK(finish(cc, a, reason));
  CHECK(!finish(cc, b, reason) && reason == AbortReason::si_write_conflict);
  // A writer whose snapshot predates the committed version fails at open already.
  CHECK(!add(cc, late, data.rows[0], 1, reason) && reason == AbortReason::si_write_conflict);
  late.abort();
  CHECK(data.rows[0]->columns()[0] == kInitialBalance + 1 && data.rows[0]->columns()[1] == 1);
  // A row held by a validated (prepared) commit: another writer gives up (no waiting), a
  // reader reads the committed version under it.
  TxnContext holder(kColumns), other(kColumns), reader(kColumns);
  CHECK(add(cc, holder, data.rows[0], 1, reason) && cc.validate(holder, reason));
  CHECK(!add(cc, other, data.rows[0], 1, reason) && reason == AbortReason::si_locked);
  other.abort();
  CHECK(read(cc, reader, data.rows[0], reason) == kInitialBalance + 1);
  reader.commit();
  holder.commit();
  CHECK(data.rows[0]->columns()[0] == kInitialBalance + 2);
}

void test_skipping_the_write_conflict_loses_an_update() {
  Rows data(1);
  MultiVersionCc cc;
  cc.state->skip_write_conflict = true;
  TxnContext a(kColumns), b(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  CHECK(add(cc, a, data.rows[0], 1, reason));
  CHECK(add(cc, b, data.rows[0], 1, reason));
  CHECK(finish(cc, a, reason));
  CHECK(finish(cc, b, reason));
  CHECK(data.rows[0]->columns()[1] == 1);  // two committed writes, one counted: lost
}

void test_write_skew_is_allowed() {
  // Two rows with the constraint x + y >= 0; each transaction reads both and withdraws from
  // one only if the sum allows it. Serializable would abort one; snapshot isolation commits both.
  Rows data(2);
  const MultiVersionCc cc;
  TxnContext a(kColumns), b(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  const std::int64_t sum_a = read(cc, a, data.rows[0], reason) + read(cc, a, data.rows[1], reason);
  const std::int64_t sum_b = read(cc, b, data.rows[0], reason) + read(cc, b, data.rows[1], reason);
  CHECK(sum_a == 2 * kInitialBalance && sum_b == 2 * kInitialBalance);
  CHECK(add(cc, a, data.rows[0], -2 * kInitialBalance, reason));
  CHECK(add(cc, b, data.rows[1], -2 * kInitialBalance, reason));
  CHECK(finish(cc, a, reason));
  CHECK(finish(cc, b, reason));
  CHECK(data.rows[0]->columns()[0] + data.rows[1]->columns()[0] == -2 * kInitialBalance);
}

void test_inserts_are_absent_from_older_snapshots() {
  Rows data(2);
  const MultiVersionCc cc;
  TxnContext old_reader(kColumns), inserter(kColumns), reader(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  CHECK(read(cc, old_reader, data.rows[0], reason) == kInitialBalance);  // its snapshot: 0
  // The inserter first writes row 0 so that the commit has a timestamp above 0, then inserts row 1.
  CHECK(add(cc, inserter, data.rows[0], 1, reason));
  Row* fresh = data.rows[1];
  CHECK(cc.insert(fresh, inserter, reason));
  fresh->columns()[0] = 7;
  CHECK(read(cc, reader, fresh, reason) == -1 && reason == AbortReason::si_not_visible);  // uncommitted
  reader.abort();
  CHECK(finish(cc, inserter, reason));
  CHECK(read(cc, old_reader, fresh, reason) == -1 && reason == AbortReason::si_not_visible);  // after its snapshot
  old_reader.abort();
  TxnContext later(kColumns);
  CHECK(read(cc, later, fresh, reason) == 7);
  later.commit();
  // An aborted insert puts the word back.
  TxnContext again(kColumns);
  const std::uint64_t word = fresh->lock.load();
  CHECK(cc.insert(fresh, again, reason));
  again.abort();
  CHECK(fresh->lock.load() == word);
}

void test_garbage_collection_keeps_the_store_bounded() {
  // Many more versions than rows, with snapshots left open for a while and then closed: the
  // live versions never exceed what the open snapshots can read (one per row and snapshot
  // interval, plus one per row not swept yet), and closing every snapshot frees all of them.
  constexpr int kRowsN = 16, kCommits = 20000, kPinEvery = 500;
  Rows data(kRowsN);
  const MultiVersionCc cc;
  TxnContext writer(kColumns), pinned(kColumns);
  AbortReason reason = AbortReason::lock_conflict;
  std::mt19937 rng(3);
  std::uint64_t peak = 0;
  int committed = 0;
  for (int i = 0; i < kCommits; ++i) {
    if (i % kPinEvery == 0) {
      pinned.commit();  // the old snapshot closes, a new one opens
      CHECK(read(cc, pinned, data.rows[0], reason) >= kInitialBalance);
    }
    if (add(cc, writer, data.rows[rng() % kRowsN], 1, reason) && finish(cc, writer, reason)) ++committed;
    peak = std::max(peak, cc.state->versions.stats().live);
  }
  pinned.commit();
  const VersionStore::Stats end = cc.state->versions.stats();
  CHECK(committed == kCommits);
  CHECK(end.created == static_cast<std::uint64_t>(kCommits));
  // Live versions: each row holds at most the version the pinned snapshot reads, one the
  // previous pinned snapshot read (until the row is written or swept again), the ones the
  // writer's own snapshot and the counter at its cached horizon scan read, plus the versions
  // written after that scan (at most one GC period of commits): four per row and a few.
  std::printf("peak live versions %llu (of %d created, %d rows)\n", static_cast<unsigned long long>(peak), kCommits,
              kRowsN);
  CHECK(peak <= static_cast<std::uint64_t>(kRowsN) * 4 + SnapshotTxn::kGcPeriod + 1);
  sweep_all(cc);
  CHECK(cc.state->versions.stats().live == 0);
  std::int64_t writes = 0;
  for (const Row* row : data.rows) writes += row->columns()[1];
  CHECK(writes == kCommits);
}

// Threads: writers move one unit from a row to another; readers sum every row in one snapshot.
constexpr int kRowsT = 8, kWriters = 2, kReaders = 2, kTransfers = 3000, kSums = 1500;

void test_threads_read_consistent_snapshots() {
  Rows data(kRowsT);
  const MultiVersionCc cc;
  std::atomic<int> bad_sums{0}, commits{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      TxnContext txn(kColumns);
      std::mt19937 rng(11 + w);
      AbortReason reason = AbortReason::lock_conflict;
      for (int done = 0; done < kTransfers;) {
        const std::size_t from = rng() % kRowsT, to = (from + 1 + rng() % (kRowsT - 1)) % kRowsT;
        if (add(cc, txn, data.rows[from], -1, reason) && add(cc, txn, data.rows[to], 1, reason) &&
            finish(cc, txn, reason)) {
          ++done;
          ++commits;
        } else {
          txn.abort();
        }
      }
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&] {
      TxnContext txn(kColumns);
      AbortReason reason = AbortReason::lock_conflict;
      for (int i = 0; i < kSums; ++i) {
        std::int64_t sum = 0;
        bool ok = true;
        for (Row* row : data.rows) {
          const std::int64_t v = read(cc, txn, row, reason);
          ok = ok && v >= 0;
          sum += v;
        }
        if (ok && sum != std::int64_t{kRowsT} * kInitialBalance) ++bad_sums;
        txn.commit();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::int64_t total = 0, writes = 0;
  for (const Row* row : data.rows) {
    total += row->columns()[0];
    writes += row->columns()[1];
    CHECK((row->lock.load() & MultiVersionCc::kFlags) == 0);
  }
  CHECK(bad_sums.load() == 0);
  CHECK(commits.load() == kWriters * kTransfers);
  CHECK(total == std::int64_t{kRowsT} * kInitialBalance);
  CHECK(writes == 2 * std::int64_t{kWriters} * kTransfers);  // no update lost
}

}  // namespace

int main() {
  test_reads_see_their_snapshot_through_the_chain();
  test_writes_are_private_until_commit_and_abort_leaves_nothing();
  test_first_committer_wins();
  test_skipping_the_write_conflict_loses_an_update();
  test_write_skew_is_allowed();
  test_inserts_are_absent_from_older_snapshots();
  test_garbage_collection_keeps_the_store_bounded();
  test_threads_read_consistent_snapshots();
  return test_summary("test_multi_version_cc");
}
