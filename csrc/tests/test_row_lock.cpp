#include <atomic>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/txn/row_lock.hpp"

using namespace islands;

int main() {
  std::atomic<std::uint64_t> word{0};
  AbortReason reason = AbortReason::lock_conflict;

  // Shared locks share; the stored timestamp is the oldest holder's.
  CHECK(RowLock::acquire(word, LockMode::shared, 50, LockPolicy::no_wait, reason));
  CHECK(RowLock::acquire(word, LockMode::shared, 20, LockPolicy::no_wait, reason));
  CHECK((word.load() & RowLock::kTsMask) == 20);
  CHECK(((word.load() & RowLock::kReaderMask) >> 48) == 2);
  // No-wait: an exclusive request against readers aborts with lock_conflict.
  CHECK(!RowLock::acquire(word, LockMode::exclusive, 10, LockPolicy::no_wait, reason));
  CHECK(reason == AbortReason::lock_conflict);
  // Wait-die: a younger requester (ts 30 > oldest holder 20) dies.
  CHECK(!RowLock::acquire(word, LockMode::exclusive, 30, LockPolicy::wait_die, reason));
  CHECK(reason == AbortReason::wait_die);
  // A tie dies too (no wait cycle can form between equal timestamps).
  CHECK(!RowLock::acquire(word, LockMode::exclusive, 20, LockPolicy::wait_die, reason));
  RowLock::release(word, LockMode::shared);
  RowLock::release(word, LockMode::shared);
  CHECK(word.load() == 0);

  // Exclusive excludes readers.
  CHECK(RowLock::acquire(word, LockMode::exclusive, 40, LockPolicy::no_wait, reason));
  CHECK(!RowLock::acquire(word, LockMode::shared, 45, LockPolicy::wait_die, reason));
  CHECK(reason == AbortReason::wait_die);

  // Wait-die: an older requester waits until the younger holder releases, then gets it.
  std::atomic<bool> got{false};
  std::thread older([&] {
    AbortReason r;
    got = RowLock::acquire(word, LockMode::exclusive, 5, LockPolicy::wait_die, r);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(!got.load());
  RowLock::release(word, LockMode::exclusive);
  older.join();
  CHECK(got.load());
  CHECK((word.load() & RowLock::kExclusive) && (word.load() & RowLock::kTsMask) == 5);
  RowLock::release(word, LockMode::exclusive);

  // Mutual exclusion under contention: a plain counter guarded by the lock loses nothing.
  long counter = 0;
  std::vector<std::thread> threads;
  std::atomic<std::uint64_t> aborts{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        AbortReason r;
        const std::uint64_t ts = static_cast<std::uint64_t>(i) * 4 + t + 1;
        while (!RowLock::acquire(word, LockMode::exclusive, ts, LockPolicy::no_wait, r)) ++aborts;
        ++counter;
        RowLock::release(word, LockMode::exclusive);
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(counter == 80000);
  CHECK(word.load() == 0);
  return test_summary("row_lock");
}
