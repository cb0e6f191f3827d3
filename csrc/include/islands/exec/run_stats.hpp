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
#include "islands/log/log_recovery.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/perf/component.hpp"
#include "islands/perf/counter_reading.hpp"

namespace islands {

//! A worker's part in the client layer (driver.clients = closed or open, exec/client_driver.hpp);
//! all zero when every worker is its own client. Requests are conserved: over a deployment,
//! submitted - refused + forwarded = taken + what its queues still hold, and taken - forwarded
//! = answered + those a worker abandoned at the stop (at most one each). Only PLP forwards.
struct ClientStats {
  std::uint64_t submitted = 0;     //!< requests this worker's clients submitted, whole run
  std::uint64_t refused = 0;       //!< of those, refused by a full queue (open loop), whole run
  std::uint64_t taken = 0;         //!< requests this worker took from its instance's queue, whole run
  std::uint64_t answered = 0;      //!< of those, decided: committed (acknowledged) or rolled back, whole run
  //! PLP: of those taken, re-routed to the worker that owns their home unit now (it moved
  //! after the client routed them), whole run
  std::uint64_t forwarded = 0;
  //! PLP: of those taken, run by this worker although another owned their home unit (that
  //! owner's queue was full), whole run
  std::uint64_t ran_away = 0;
  //! Of those taken, taken from a sibling worker's stash (this worker was idle), whole run
  std::uint64_t stolen = 0;
  std::uint64_t client_ticks = 0;  //!< cycle-clock ticks spent drawing and submitting requests, measured window
  std::uint64_t idle_ticks = 0;    //!< ticks with no request to take, measured window
  //! its instance's queue length once per driver.timeline_interval_s, measured window
  std::vector<std::uint64_t> queue_lengths;
  //! At the same samples, between two transactions: the requests this worker took and has not
  //! forwarded or answered (taken - forwarded - answered, so far)...
  std::vector<std::uint64_t> outstanding;
  //! ...and of those, the ones waiting in its commit pipeline for their log flush. Nothing is
  //! lost between a client and a worker when the two are equal at every sample.
  std::vector<std::uint64_t> pipelined;
};

//! What one worker did in the measured window (and a few whole-run totals for checks).
struct WorkerStats {
  int cpu = -1;                                    //!< CPU the worker was pinned to (-1: not pinned)
  int observed_cpu = -1;                           //!< CPU it was running on when it stopped
  std::uint64_t site = 0;                          //!< the worker's home site
  std::uint64_t commits = 0;                       //!< committed transactions
  //! Committed transactions per type of the workload (TATP's seven, TPC-C's NewOrder and
  //! Payment, ...; index as the workload numbers them), measured window.
  std::array<std::uint64_t, 8> commits_by_type{};
  std::uint64_t user_rollbacks = 0;                //!< transactions that rolled themselves back (the specification's), not retried
  std::array<std::uint64_t, kNumAbortReasons> aborts{};  //!< aborted attempts per reason
  LatencyHistogram latency;                        //!< first attempt (client layer: submission) to commit, ns
  //! the same by transaction type (commits_by_type's numbering)
  std::array<LatencyHistogram, 8> latency_by_type;
  ClientStats clients;                             //!< the client layer's part (driver.clients)
  //! Commits per driver.timeline_interval_s of the measured window, from its start (the last
  //! interval may be partial; intervals after the last commit are not listed)
  std::vector<std::uint64_t> timeline;
  std::uint64_t checksum = 0;                      //!< sum of values read (keeps reads honest)
  std::uint64_t commits_all_phases = 0;            //!< commits in warm-up and window
  std::uint64_t row_updates_all_phases = 0;        //!< rows updated by committed txns, all phases
  std::uint64_t multisite_commits = 0;             //!< committed transactions that spanned instances
  std::uint64_t fragments_sent = 0;                //!< 2PC fragments sent as coordinator, whole run
  std::uint64_t decisions_sent = 0;                //!< 2PC phase-2 decisions sent, whole run
  //! engine.execution = plp: transactions committed in two stages, their second stage
  //! consuming what the first produced (exec/plp/plp_stages.hpp), measured window
  std::uint64_t staged_commits = 0;
  //! of those, whole run: records the first stage's actions produced, and records the second
  //! stage's operations consumed (equal when every record produced was used)
  std::uint64_t rendezvous_produced = 0;
  std::uint64_t rendezvous_consumed = 0;
  //! second-stage actions sent to another partition (its consumer not the coordinator's), whole run
  std::uint64_t stage1_actions_sent = 0;
  //! engine.plp_handoff, whole run: transactions this worker drew and handed to the owner of
  //! their home unit; handed transactions it coordinated (to commit, rollback or giving up);
  //! handed transactions it dropped unstarted at the stop (every hand-off is run or dropped once)
  std::uint64_t handoffs_sent = 0;
  std::uint64_t handoffs_run = 0;
  std::uint64_t handoffs_dropped = 0;
  std::uint64_t validations_sent = 0;              //!< 2PC validate requests sent (occ, several participants)
  std::uint64_t messages_sent = 0;                 //!< transport messages sent, whole run
  std::uint64_t messages_received = 0;             //!< transport messages received, whole run
  std::uint64_t messages_delayed = 0;              //!< of those, held back by the injected cross-socket delay
  std::uint64_t malformed_messages = 0;            //!< malformed records rejected, whole run
  //! test mode (engine.test_count_cross_socket): accesses to system structures kept by another
  //! socket than the worker's (its active-list entry and system-state lock), whole run
  std::uint64_t cross_socket_accesses = 0;
  //! CPU time the worker's thread got from the start of its measured window to its stop (what
  //! the window's commits cost, however often the thread was descheduled); 0: no window
  std::uint64_t cpu_ns = 0;
  //! transactions that logged nothing whose acknowledgement waited for what they may have read
  //! (the read-only rule of early lock release), whole run
  std::uint64_t read_only_waits = 0;
  std::uint64_t read_only_vote_waits = 0;          //!< read-only 2PC votes that waited so, whole run
  std::uint64_t log_wait_ns = 0;                   //!< time blocked on the log: a full pipeline of commits waiting for their flush, whole run
  std::vector<CounterReading> counters;            //!< per-thread counters over the window
  std::array<std::uint64_t, kNumComponents> component_ticks{};  //!< timed transactions' ticks per component
  std::uint64_t timed_txns = 0;                    //!< transactions timed by the breakdown
  std::uint64_t window_ticks = 0;                  //!< the worker's own window, start to stop (ticks)

  //! Zeroes the measured-window counters (not the all-phase totals).
  void reset_window() {
    commits = 0;
    user_rollbacks = 0;
    commits_by_type.fill(0);
    multisite_commits = 0;
    staged_commits = 0;
    aborts.fill(0);
    latency.clear();
    for (LatencyHistogram& h : latency_by_type) h.clear();
    clients.client_ticks = 0;
    clients.idle_ticks = 0;
    clients.queue_lengths.clear();
    clients.outstanding.clear();
    clients.pipelined.clear();
    timeline.clear();
  }
};

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
