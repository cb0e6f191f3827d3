#pragma once
#include <array>
#include <map>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "islands/atrapos/monitor_snapshot.hpp"
#include "islands/common/abort_reason.hpp"
#include "islands/common/latency_histogram.hpp"
#include "islands/exec/worker_counters.hpp"
#include "islands/log/log_recovery.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/perf/component.hpp"
#include "islands/perf/counter_reading.hpp"

namespace islands {

// The declaration and the window reset of one counter of a list (exec/worker_counters.hpp).
#define ISLANDS_COUNTER_FIELD(shape, name, scope, aggregate, reported, unit, doc) counter_shape::shape::type name{};
#define ISLANDS_COUNTER_RESET(shape, name, scope, aggregate, reported, unit, doc) \
  if (CounterPeriod::scope == CounterPeriod::window) zero_counter(name);

//! A worker's part in the client layer (driver.clients = closed or open, exec/client_driver.hpp):
//! the counters of ISLANDS_CLIENT_COUNTERS (exec/worker_counters.hpp), all zero when every worker
//! is its own client.
struct ClientStats {
  ISLANDS_CLIENT_COUNTERS(ISLANDS_COUNTER_FIELD)

  //! Zeroes the measured-window counters (not the whole-run totals).
  void reset_window() { ISLANDS_CLIENT_COUNTERS(ISLANDS_COUNTER_RESET) }
};

//! What one worker did: the counters of ISLANDS_WORKER_COUNTERS (exec/worker_counters.hpp; the
//! measured window's, and whole-run totals for checks), its place, and its latencies.
struct WorkerStats {
  ISLANDS_WORKER_COUNTERS(ISLANDS_COUNTER_FIELD)
  int cpu = -1;                                    //!< CPU the worker was pinned to (-1: not pinned)
  int observed_cpu = -1;                           //!< CPU it was running on when it stopped
  std::uint64_t site = 0;                          //!< the worker's home site
  //! transactions it drew ahead (engine.interleave as its worker resolved it: -1 decides by
  //! the data's size against the last-level cache; 0: off)
  std::uint64_t interleave_depth = 0;
  //! first attempt (client layer: submission) to commit, ns, measured window
  LatencyHistogram latency;
  //! the same by transaction type (commits_by_type's numbering)
  std::array<LatencyHistogram, kMaxTxnTypes> latency_by_type;
  ClientStats clients;                             //!< the client layer's part (driver.clients)
  std::vector<CounterReading> counters;            //!< per-thread counters over the window

  //! Zeroes the measured-window counters (not the whole-run totals).
  void reset_window() {
    ISLANDS_WORKER_COUNTERS(ISLANDS_COUNTER_RESET)
    latency.clear();
    for (LatencyHistogram& h : latency_by_type) h.clear();
    clients.reset_window();
  }
};

#undef ISLANDS_COUNTER_FIELD
#undef ISLANDS_COUNTER_RESET

//! A consistency figure by name.
using CheckFigures = std::vector<std::pair<std::string, std::int64_t>>;
//! Consistency figures by name, summed over a deployment's instances, with the run's own:
//! payload_sum_before, payload_sum_after, committed_row_updates, committed_txns (what a
//! workload's verify reads).
using CheckMap = std::map<std::string, std::int64_t>;
//! The figure called name in figures, 0 when there is none.
std::int64_t figure_or_zero(const char* name, const CheckFigures& figures);

//! What re-partitionings of a PLP instance did over a run (exec/plp/plp_routing.hpp).
struct RepartitionStats {
  std::uint64_t repartitions = 0;  //!< re-partitionings that moved at least one unit
  std::uint64_t units_moved = 0;   //!< routing units handed to another worker, summed
  double pause_ns_total = 0;       //!< summed time from freezing the moving units to handing them over
  double pause_ns_max = 0;         //!< the longest such pause
  std::uint64_t incomplete = 0;    //!< re-partitionings cut short by the instance stopping
  std::uint64_t stalls = 0;        //!< re-partitionings whose drain the watchdog dumped (PlpDrainWatch)
  std::string stall;               //!< the first such dump, with how its drain ended (empty: none)
};

//! Outcome of one run.
struct RunStats {
  std::vector<WorkerStats> workers;   //!< one per worker, in config order
  double load_s = 0;                  //!< seconds to build the tables and indexes
  double measured_s = 0;              //!< length of the measured window
  //! Why the run ended before its time (the workload's stop_reason, e.g. its memory budget);
  //! empty when it ran its whole window. The window is then shorter (0: it never opened).
  std::string stopped_early;
  std::int64_t payload_sum_before = 0;  //!< sum of column 0 over all rows after loading
  std::int64_t payload_sum_after = 0;   //!< the same sum after the run
  RecoveryStats recovery;               //!< what recovery did before the run (restart)
  LogWriterStats log;                   //!< what the log did during the run
  std::uint64_t log_durable_lsn = 0;    //!< log LSN durable at the end of the run
  std::vector<CounterReading> cpu_counters;  //!< whole-CPU (uncore) counters over the window
  double ns_per_tick = 0;               //!< converts component ticks to nanoseconds
  //! The workload's consistency figures over this instance's sites after loading and after
  //! the run (micro: payload_sum; TPC-B: balance sums and mismatch counts, see its workload).
  CheckFigures checks_before, checks_after;
  //! engine.record_history: every committed transaction (part) of the run: the word counts of
  //! the three HistorySink streams (txn/txn_history.hpp), then the streams; empty otherwise.
  std::vector<std::uint64_t> history;
  //! The system structures (engine.system_structures): time the run thread waited for every
  //! running transaction to end at the two phase changes that open and close the measured
  //! window (it takes the system-state lock exclusively there), and the age of the oldest
  //! active transaction its samples of the active lists saw (every 2 ms while it waits), ns.
  std::uint64_t quiesce_ns = 0;
  std::uint64_t longest_active_ns = 0;
  RepartitionStats repartitioning;  //!< engine.execution = plp: the run's re-partitionings
  //! The client layer (driver.clients): requests left in this instance's queue at the end, and
  //! how many its full queue refused, whole run
  std::uint64_t requests_queued_at_end = 0;
  std::uint64_t requests_refused = 0;
  //! engine.plp_monitor: ATraPos's trace of the whole run (sites x units; exec/plp/plp_monitor.hpp)
  atrapos::MonitorSnapshot monitor;

  std::uint64_t commits() const;        //!< all workers' measured commits
  std::uint64_t aborts() const;         //!< all workers' measured aborts
  LatencyHistogram latency() const;     //!< all workers' latencies merged
};

}  // namespace islands
