#include "islands/bench/counter_bench.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "islands/common/cpu_affinity.hpp"

namespace islands {

namespace {

using SteadyClock = std::chrono::steady_clock;

// One counter and its lock. Each slot sits on its own page, first touched by the first thread
// that increments it (after pinning), so the counter's memory is local to that thread's node.
template <class Lock>
struct CounterSlot {
  Lock lock;
  // Under a lock the increment is a plain load and store (no atomic read-modify-write), so a
  // lock that let two holders in would lose updates, and the final check would show it.
  std::atomic<std::uint64_t> value{0};
};

// Per-thread progress, on its own cache line: the owner stores, the main thread reads twice.
struct alignas(64) Progress {
  std::atomic<std::uint64_t> done{0};
};

double thread_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double clock_seconds(clockid_t clock) {
  timespec ts{};
  if (clock == static_cast<clockid_t>(-1) || ::clock_gettime(clock, &ts) != 0) return std::nan("");
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

enum Phase : int { kStarting = 0, kWarmup = 1, kMeasure = 2, kStop = 3 };

// The tight loop, one instantiation per lock kind: lock, increment, unlock, count.
template <class Lock, bool kAtomic>
std::uint64_t increment_loop(CounterSlot<Lock>& slot, Progress& progress, const std::atomic<int>& phase,
                             std::uint64_t limit) {
  LockNode node;
  std::uint64_t n = 0;
  while (limit ? n < limit : phase.load(std::memory_order_relaxed) != kStop) {
    if constexpr (kAtomic) {
      slot.value.fetch_add(1, std::memory_order_relaxed);
    } else {
      slot.lock.lock(node);
      slot.value.store(slot.value.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      slot.lock.unlock(node);
    }
    progress.done.store(++n, std::memory_order_relaxed);
  }
  return n;
}

template <class Lock, bool kAtomic>
CounterBenchResult run_with(const CounterBenchConfig& config) {
  using Slot = CounterSlot<Lock>;
  const std::size_t threads = config.cpus.size();
  const int counters = config.n_counters();
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t slot_bytes = (sizeof(Slot) + page - 1) / page * page;

  // Fresh pages (mmap), so that first touch decides their node; released on every path.
  struct Pages {
    std::vector<void*> pages;
    std::vector<Slot*> slots;  // set once the slot is constructed in its page
    std::size_t bytes = 0;
    ~Pages() {
      for (std::size_t c = 0; c < pages.size(); ++c) {
        if (slots[c]) slots[c]->~Slot();
        if (pages[c]) ::munmap(pages[c], bytes);
      }
    }
  } mem;
  mem.bytes = slot_bytes;
  mem.pages.assign(counters, nullptr);
  mem.slots.assign(counters, nullptr);
  for (int c = 0; c < counters; ++c) {
    void* p = ::mmap(nullptr, slot_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error(std::string("counters: mmap: ") + std::strerror(errno));
    mem.pages[c] = p;
  }
  std::vector<Slot*>& slots = mem.slots;
  std::vector<void*>& pages = mem.pages;

  // The first thread of each counter constructs it.
  std::vector<int> constructor_of(counters, -1);
  for (std::size_t t = 0; t < threads; ++t) {
    if (constructor_of[config.counter_of[t]] < 0) constructor_of[config.counter_of[t]] = static_cast<int>(t);
  }
  for (int c = 0; c < counters; ++c) {
    if (constructor_of[c] < 0) slots[c] = new (pages[c]) Slot();  // unused counter
  }

  std::vector<Progress> progress(threads);
  std::vector<std::uint64_t> totals(threads, 0);
  std::vector<int> cpu_seen(threads, -1);
  std::vector<double> cpu_s(threads, 0.0);
  std::atomic<int> phase{kStarting};
  std::atomic<std::size_t> ready{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        if (config.cpus[t] >= 0) pin_current_thread(config.cpus[t]);
        const int c = config.counter_of[t];
        if (constructor_of[c] == static_cast<int>(t)) slots[c] = new (pages[c]) Slot();
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
      ready.fetch_add(1);
      while (phase.load(std::memory_order_acquire) == kStarting) std::this_thread::yield();
      if (phase.load() == kStop) return;
      const double cpu0 = thread_cpu_seconds();
      totals[t] = increment_loop<Lock, kAtomic>(*slots[config.counter_of[t]], progress[t], phase,
                                                config.increments_per_thread);
      if (config.increments_per_thread) cpu_s[t] = thread_cpu_seconds() - cpu0;  // the whole run is measured
      cpu_seen[t] = ::sched_getcpu();
    });
  }
  while (ready.load() < threads) std::this_thread::sleep_for(std::chrono::microseconds(100));
  if (error) {
    phase.store(kStop);
    for (std::thread& w : workers) w.join();
    std::rethrow_exception(error);
  }

  // Each thread's CPU clock, read from here, tells how much of the window it actually ran.
  std::vector<clockid_t> clocks(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    if (::pthread_getcpuclockid(workers[t].native_handle(), &clocks[t]) != 0) clocks[t] = -1;
  }
  std::vector<double> cpu_before(threads, 0.0);
  auto snapshot = [&](std::vector<std::uint64_t>& out, std::vector<double>& cpu) {
    out.resize(threads);
    for (std::size_t t = 0; t < threads; ++t) out[t] = progress[t].done.load(std::memory_order_relaxed);
    for (std::size_t t = 0; t < threads; ++t) cpu[t] = clock_seconds(clocks[t]);
  };
  auto sleep_s = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  CounterBenchResult result;
  std::vector<std::uint64_t> before(threads, 0), after;
  SteadyClock::time_point t0, t1;
  if (config.increments_per_thread) {
    // A fixed amount of work: the window runs from the start signal until the last thread ends.
    t0 = SteadyClock::now();
    phase.store(kMeasure, std::memory_order_release);
    for (std::thread& w : workers) w.join();
    t1 = SteadyClock::now();
    after = totals;
  } else {
    phase.store(kWarmup, std::memory_order_release);
    sleep_s(config.warmup_s);
    snapshot(before, cpu_before);
    t0 = SteadyClock::now();
    sleep_s(config.duration_s);
    snapshot(after, cpu_s);
    t1 = SteadyClock::now();
    for (std::size_t t = 0; t < threads; ++t) cpu_s[t] -= cpu_before[t];
    phase.store(kStop, std::memory_order_release);
    for (std::thread& w : workers) w.join();
  }
  result.measured_s = std::chrono::duration<double>(t1 - t0).count();
  result.total_increments = totals;
  result.measured_increments.resize(threads);
  for (std::size_t t = 0; t < threads; ++t) result.measured_increments[t] = after[t] - before[t];
  result.cpu_seen = cpu_seen;
  result.cpu_s = cpu_s;
  result.counter_values.resize(counters);
  result.expected_values.assign(counters, 0);
  for (int c = 0; c < counters; ++c) result.counter_values[c] = slots[c]->value.load();
  for (std::size_t t = 0; t < threads; ++t) result.expected_values[config.counter_of[t]] += totals[t];
  return result;
}

}  // namespace

void CounterBenchConfig::validate() const {
  if (cpus.empty()) throw std::invalid_argument("cpus: at least one thread is needed");
  if (cpus.size() > 4096) throw std::invalid_argument("cpus: at most 4096 threads");
  if (counter_of.size() != cpus.size()) {
    throw std::invalid_argument("counter_of: one entry per thread is needed (" + std::to_string(cpus.size()) +
                                " threads, " + std::to_string(counter_of.size()) + " entries)");
  }
  for (int c : counter_of) {
    if (c < 0 || c >= 4096) throw std::invalid_argument("counter_of: counter " + std::to_string(c) + " is not in 0..4095");
  }
  const std::vector<int> allowed = allowed_cpus();
  for (int cpu : cpus) {
    if (cpu == -1) continue;
    if (cpu < -1 || std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
      throw std::invalid_argument("cpus: CPU " + std::to_string(cpu) + " is not online or not allowed here");
    }
  }
  if (!(warmup_s >= 0.0 && std::isfinite(warmup_s))) {
    throw std::invalid_argument("warmup_s: must be a finite number of seconds >= 0");
  }
  if (increments_per_thread == 0 && !(duration_s > 0.0 && std::isfinite(duration_s))) {
    throw std::invalid_argument("duration_s: must be a finite number of seconds > 0");
  }
}

int CounterBenchConfig::n_counters() const {
  int most = -1;
  for (int c : counter_of) most = std::max(most, c);
  return most + 1;
}

std::uint64_t CounterBenchResult::measured() const {
  std::uint64_t sum = 0;
  for (std::uint64_t n : measured_increments) sum += n;
  return sum;
}

double CounterBenchResult::cpu_share() const {
  if (cpu_s.empty() || !(measured_s > 0)) return std::nan("");
  double sum = 0;
  for (double c : cpu_s) sum += c;
  return sum / (static_cast<double>(cpu_s.size()) * measured_s);
}

CounterBenchResult run_counter_bench(const CounterBenchConfig& config) {
  config.validate();
  switch (config.lock) {
    case LockKind::mutex: return run_with<MutexLock, false>(config);
    case LockKind::ttas: return run_with<TtasLock, false>(config);
    case LockKind::mcs: return run_with<McsLock, false>(config);
    case LockKind::atomic: return run_with<NoLock, true>(config);
  }
  throw std::invalid_argument("lock: unknown lock kind");
}

}  // namespace islands
