// ATraPos monitoring (paper 002 Sec V-D): sub-partition cuts, what a snapshot holds, interval
// differences, bad input, and owner threads recording while a monitor thread reads (run under
// TSan by make test-tsan: the owners' plain-move increments must not race with the reader).
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/atrapos/monitoring_bench.hpp"
#include "islands/atrapos/workload_monitor.hpp"
#include "test_cases.hpp"

using namespace islands::atrapos;

namespace {

template <class F>
bool throws(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
    return true;
  }
  return false;
}

void sub_partition_cuts() {
  // The cut islands.atrapos.split_range makes: lo + ceil(k * width / 10).
  PartitionMonitor m(0, 35, 1);
  const std::uint64_t expected[] = {0, 4, 7, 11, 14, 18, 21, 25, 28, 32, 35};
  for (std::size_t k = 0; k <= kSubPartitions; ++k) CHECK(m.bound(k) == expected[k]);
  for (std::uint64_t key = 0; key < 35; ++key) {
    const unsigned sub = m.sub_of(key);
    CHECK(m.bound(sub) <= key && key < m.bound(sub + 1));
  }
  CHECK(m.sub_of(1000) == kSubPartitions - 1);
  PartitionMonitor big(100, ~std::uint64_t{0}, 1);  // no overflow at the top of the key space
  CHECK(big.sub_of(100) == 0 && big.sub_of(~std::uint64_t{0} - 1) == kSubPartitions - 1);
  CHECK(big.bound(kSubPartitions) == ~std::uint64_t{0});
}

void snapshot_layout_and_differences() {
  WorkloadMonitor w({{0, 100}, {100, 300}});
  w.partition(1).record_action(w.partition(1).sub_of(299), 40);
  w.partition(1).record_action(9, 2);
  w.partition(0).record_sync(3, 1, 7, 24);
  const MonitorSnapshot a = w.snapshot();
  CHECK(a.n_partitions == 2 && a.actions.size() == 20 && a.sync_count.size() == 400);
  CHECK(a.actions[1 * 10 + 9] == 2 && a.cost[1 * 10 + 9] == 42 && a.total_actions() == 2);
  const std::size_t at = ((0 * 10 + 3) * 2 + 1) * 10 + 7;
  CHECK(a.sync_count[at] == 1 && a.sync_bytes[at] == 24);
  w.partition(0).record_action(0, 5);
  const MonitorSnapshot d = w.snapshot().since(a);
  CHECK(d.total_actions() == 1 && d.cost[0] == 5 && d.sync_count[at] == 0);
  CHECK(throws([&] { (void)a.since(w.snapshot()); }));  // the wrong order: counters go down
  WorkloadMonitor other({{0, 100}});
  CHECK(throws([&] { (void)a.since(other.snapshot()); }));
}

void bad_input_is_refused() {
  CHECK(throws([] { PartitionMonitor(5, 10, 1); }));  // 5 keys, 10 sub-partitions
  CHECK(throws([] { PartitionMonitor(0, 100, 0); }));
  CHECK(throws([] { WorkloadMonitor(std::vector<std::pair<std::uint64_t, std::uint64_t>>{}); }));
  std::vector<std::unique_ptr<PartitionMonitor>> wrong;
  wrong.push_back(std::make_unique<PartitionMonitor>(0, 100, 3));
  CHECK(throws([&] { WorkloadMonitor(std::move(wrong)); }));
  CHECK(throws([] { parse_monitoring_mode("sometimes"); }));
}

void owners_record_while_the_monitor_reads() {
  constexpr std::size_t kPartitions = 4;
  constexpr std::uint64_t kActions = 200000;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (std::size_t p = 0; p < kPartitions; ++p) ranges.emplace_back(p * 1000, (p + 1) * 1000);
  WorkloadMonitor w(ranges);
  std::atomic<std::size_t> running{kPartitions};
  std::atomic<std::size_t> snapshots{0};
  std::vector<std::thread> owners;
  for (std::size_t p = 0; p < kPartitions; ++p) {
    owners.emplace_back([&, p] {
      PartitionMonitor& m = w.partition(p);
      std::uint64_t key = p * 1000;
      for (std::uint64_t i = 0; i < kActions; ++i) {
        // Paced: the k-th tenth of the actions waits for the monitor's k-th snapshot, so that
        // reads and writes overlap however the threads are scheduled.
        if (i % (kActions / 10) == 0) {
          while (snapshots.load() < i / (kActions / 10)) std::this_thread::yield();
        }
        key = p * 1000 + (key * 7 + 13) % 1000;
        const unsigned sub = m.sub_of(key);
        m.record_action(sub, 3);
        if (i % 4 == 0) m.record_sync(sub, static_cast<std::uint32_t>((p + 1) % kPartitions), sub, 8);
      }
      running.fetch_sub(1);
    });
  }
  // The monitor thread: every counter of every snapshot at least the previous one's.
  bool monotone = true;
  MonitorSnapshot last = w.snapshot();
  while (running.load() != 0) {
    MonitorSnapshot now = w.snapshot();
    for (std::size_t i = 0; i < now.actions.size(); ++i) {
      monotone = monotone && now.actions[i] >= last.actions[i] && now.cost[i] >= last.cost[i];
    }
    for (std::size_t i = 0; i < now.sync_count.size(); ++i) monotone = monotone && now.sync_count[i] >= last.sync_count[i];
    last = std::move(now);
    snapshots.fetch_add(1);
  }
  for (auto& t : owners) t.join();
  const MonitorSnapshot end = w.snapshot();
  CHECK(monotone);
  CHECK(snapshots.load() >= 9);
  CHECK(end.total_actions() == kPartitions * kActions);
  std::uint64_t cost = 0, syncs = 0, bytes = 0;
  for (std::uint64_t c : end.cost) cost += c;
  for (std::uint64_t c : end.sync_count) syncs += c;
  for (std::uint64_t b : end.sync_bytes) bytes += b;
  CHECK(cost == 3 * kPartitions * kActions);
  CHECK(syncs == kPartitions * kActions / 4 && bytes == 8 * syncs);
  // Syncs name only the next partition.
  for (std::size_t p = 0; p < kPartitions; ++p) {
    for (std::size_t q = 0; q < kPartitions; ++q) {
      std::uint64_t n = 0;
      for (std::size_t s = 0; s < kSubPartitions; ++s) {
        for (std::size_t r = 0; r < kSubPartitions; ++r) n += end.sync_count[((p * 10 + s) * kPartitions + q) * 10 + r];
      }
      CHECK((q == (p + 1) % kPartitions) == (n > 0));
    }
  }
}

void the_bench_does_the_same_work_in_every_mode() {
  MonitoringBenchConfig c;
  c.actions = 100000;
  std::uint64_t checksum = 0;
  for (const char* mode : {"off", "counts", "timed"}) {
    c.mode = parse_monitoring_mode(mode);
    const MonitoringBenchResult r = run_monitoring_bench(c);
    if (c.mode == MonitoringMode::kOff) checksum = r.checksum;
    CHECK(r.checksum == checksum);
    CHECK(r.recorded == (c.mode == MonitoringMode::kOff ? 0 : c.actions));
    CHECK(r.ns_per_action > 0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  islands_test::run_cases({{"sub_partition_cuts", sub_partition_cuts},
                           {"snapshot_layout_and_differences", snapshot_layout_and_differences},
                           {"bad_input_is_refused", bad_input_is_refused},
                           {"owners_record_while_the_monitor_reads", owners_record_while_the_monitor_reads},
                           {"the_bench_does_the_same_work_in_every_mode", the_bench_does_the_same_work_in_every_mode}},
                          argc, argv, islands_test::failures);
  return test_summary("test_atrapos_monitor");
}
