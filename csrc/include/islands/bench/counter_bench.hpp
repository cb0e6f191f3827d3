#pragma once
#include <cstdint>
#include <vector>

#include "islands/bench/counter_locks.hpp"

namespace islands {

//! T threads increment lock-protected counters in a tight loop (paper 000, Fig 5 and 7;
//! paper 001, Table 1). Python chooses which CPU each thread runs on (placement) and which
//! counter it increments (one for the machine, one per socket, one per core).
struct CounterBenchConfig {
  LockKind lock = LockKind::mutex;  //!< how each counter is protected
  std::vector<int> cpus;            //!< one thread per entry, pinned there; -1 leaves it to the OS
  std::vector<int> counter_of;      //!< counter each thread increments (same length as cpus)
  double warmup_s = 0.1;            //!< seconds of increments before the measured window
  double duration_s = 1.0;          //!< seconds measured (when increments_per_thread is 0)
  std::uint64_t increments_per_thread = 0;  //!< > 0: each thread makes exactly this many instead

  //! Throws std::invalid_argument naming the first bad field.
  void validate() const;
  //! Number of counters: the largest counter index plus one.
  int n_counters() const;
};

//! What one run measured, and the figures that show no update was lost.
struct CounterBenchResult {
  std::vector<std::uint64_t> measured_increments;  //!< per thread, in the measured window
  std::vector<std::uint64_t> total_increments;     //!< per thread, all phases
  std::vector<int> cpu_seen;                       //!< per thread: the CPU it ran on at the end
  std::vector<double> cpu_s;                       //!< per thread: CPU seconds it got in the measured window
  std::vector<std::uint64_t> counter_values;       //!< per counter: its final value
  std::vector<std::uint64_t> expected_values;      //!< per counter: increments its threads made
  double measured_s = 0;                           //!< seconds of the measured window

  //! Increments in the measured window, all threads.
  std::uint64_t measured() const;
  //! Increments per second, all threads.
  double increments_per_s() const { return measured_s > 0 ? measured() / measured_s : 0.0; }
  //! CPU seconds the threads got over the CPU seconds they could have had (1 = never
  //! preempted); below 1 on a shared or oversubscribed machine.
  double cpu_share() const;
  //! True when every counter's final value equals the increments made on it.
  bool consistent() const { return counter_values == expected_values; }
};

//! Starts the threads (each counter's memory first touched by its first thread), runs and
//! returns the result. Throws std::invalid_argument for a bad config or CPU.
CounterBenchResult run_counter_bench(const CounterBenchConfig& config);

}  // namespace islands
