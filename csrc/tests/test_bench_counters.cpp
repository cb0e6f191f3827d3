// No lock kind loses an update, whatever the number of counters and the placement; the locks
// themselves exclude each other. Short runs; nothing here looks at a time.
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/bench/counter_bench.hpp"
#include "islands/common/cpu_affinity.hpp"

using namespace islands;

namespace {

template <class Lock>
void test_lock_excludes() {
  Lock lock;
  std::uint64_t plain = 0;  // protected only by the lock
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      LockNode node;
      for (int i = 0; i < 50000; ++i) {
        lock.lock(node);
        plain = plain + 1;
        lock.unlock(node);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(plain == 4u * 50000u);
}

void test_no_lost_update(LockKind kind, int threads, int counters, bool pin) {
  const std::vector<int> cpus = allowed_cpus();
  CounterBenchConfig c;
  c.lock = kind;
  for (int t = 0; t < threads; ++t) {
    c.cpus.push_back(pin ? cpus[t % cpus.size()] : -1);
    c.counter_of.push_back(t % counters);
  }
  c.increments_per_thread = 20000;
  const CounterBenchResult r = run_counter_bench(c);
  CHECK(r.consistent());
  CHECK(static_cast<int>(r.counter_values.size()) == counters);
  std::uint64_t sum = std::accumulate(r.counter_values.begin(), r.counter_values.end(), std::uint64_t{0});
  CHECK(sum == static_cast<std::uint64_t>(threads) * 20000u);
  for (int k = 0; k < counters; ++k) {
    const int users = threads / counters + (k < threads % counters ? 1 : 0);
    CHECK(r.counter_values[k] == static_cast<std::uint64_t>(users) * 20000u);
  }
  CHECK(r.measured() == sum);
  CHECK(r.cpu_s.size() == static_cast<std::size_t>(threads));
  for (std::size_t t = 0; t < r.cpu_seen.size(); ++t) {
    if (pin) CHECK(r.cpu_seen[t] == c.cpus[t]);
  }
}

void test_time_based(LockKind kind) {
  CounterBenchConfig c;
  c.lock = kind;
  c.cpus = {-1, -1, -1};
  c.counter_of = {0, 0, 1};
  c.warmup_s = 0.01;
  c.duration_s = 0.03;
  const CounterBenchResult r = run_counter_bench(c);
  CHECK(r.consistent());
  CHECK(r.measured() > 0);
  CHECK(r.increments_per_s() > 0);
  for (std::size_t t = 0; t < 3; ++t) CHECK(r.measured_increments[t] <= r.total_increments[t]);
  CHECK(r.cpu_s.size() == 3);
  for (double c : r.cpu_s) CHECK(c >= 0.0 && c <= r.measured_s * 1.1 + 0.01);
  CHECK(r.cpu_share() > 0.0 && r.cpu_share() <= 1.1);
}

void test_bad_configs() {
  bool caught = false;
  try {
    parse_lock_kind("spinny");
  } catch (const std::invalid_argument& e) {
    caught = std::string(e.what()).find("unknown lock kind 'spinny'") != std::string::npos;
  }
  CHECK(caught);
  for (LockKind k : all_lock_kinds()) CHECK(parse_lock_kind(lock_kind_name(k)) == k);
  CounterBenchConfig c;
  c.cpus = {100000};
  c.counter_of = {0};
  caught = false;
  try {
    run_counter_bench(c);
  } catch (const std::invalid_argument& e) {
    caught = std::string(e.what()).find("CPU 100000") != std::string::npos;
  }
  CHECK(caught);
  c.cpus = {-1, -1};
  caught = false;
  try {
    c.validate();
  } catch (const std::invalid_argument& e) {
    caught = std::string(e.what()).find("counter_of") != std::string::npos;
  }
  CHECK(caught);
}

}  // namespace

int main() {
  test_lock_excludes<MutexLock>();
  test_lock_excludes<TtasLock>();
  test_lock_excludes<McsLock>();
  for (LockKind kind : all_lock_kinds()) {
    for (int counters : {1, 2, 4}) {
      test_no_lost_update(kind, 4, counters, true);
      test_no_lost_update(kind, 4, counters, false);
    }
    test_time_based(kind);
  }
  test_bad_configs();
  return test_summary("bench_counters");
}
