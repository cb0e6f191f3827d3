#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "islands/common/abort_reason.hpp"
#include "islands/perf/component.hpp"

namespace islands {

//! Transaction types a workload may number (commits_by_type, latency_by_type).
inline constexpr std::size_t kMaxTxnTypes = 8;

//! The shapes a worker counter takes: its C++ type, and its kind as `_core.counters()` names it.
namespace counter_shape {
//! One number.
struct Count {
  using type = std::uint64_t;  //!< the field's type
  static constexpr const char* kind = "count";  //!< the schema's word for it
};
//! One number per sample or interval, in time order (its length varies by worker).
struct Series {
  using type = std::vector<std::uint64_t>;  //!< the field's type
  static constexpr const char* kind = "series";  //!< the schema's word for it
};
//! One number per transaction type of the workload, by its numbering (a list in Python).
struct PerType {
  using type = std::array<std::uint64_t, kMaxTxnTypes>;  //!< the field's type
  static constexpr const char* kind = "per_type";  //!< the schema's word for it
};
//! One number per abort reason (a dict by reason name in Python).
struct PerReason {
  using type = std::array<std::uint64_t, kNumAbortReasons>;  //!< the field's type
  static constexpr const char* kind = "per_reason";  //!< the schema's word for it
  //! The name of entry i.
  static const char* label(std::size_t i) { return abort_reason_name(static_cast<AbortReason>(i)); }
};
//! One number per component of the time breakdown (a dict by component name in Python).
struct PerComponent {
  using type = std::array<std::uint64_t, kNumComponents>;  //!< the field's type
  static constexpr const char* kind = "per_component";  //!< the schema's word for it
  //! The name of entry i.
  static const char* label(std::size_t i) { return component_name(static_cast<Component>(i)); }
};
}  // namespace counter_shape

//! When a counter counts: only in the measured window (zeroed when the window opens, and when
//! a run stops before it opened), or over the whole run (warm-up included).
enum class CounterPeriod : unsigned char { window, run };

//! How a counter adds up over workers: summed (entry by entry for several numbers), the
//! largest, or not at all (each worker's own, read one by one).
enum class CounterAggregate : unsigned char { sum, max, each };

// The worker counters, declared once: each line generates a field of WorkerStats (or, in the
// client list, of ClientStats), its zeroing when the window opens (scope window), its entry
// in the statistics `_core.run` returns, and its row in `_core.counters()`.
//
//   X(shape, name, scope, aggregate, reported, unit, doc)
//
// shape: counter_shape::*; scope: CounterPeriod; aggregate: CounterAggregate; reported: where
// a run's result shows the aggregate, space-separated (islands.execution.worker_counters sums
// them):
//   instance      instances[i][name]: over the instance's workers
//   run           the run's total: its top level [name], and the engine's statistics [name]
//   checks.NAME   checks[NAME], a consistency figure: over every worker
//   clients       clients[name], the client layer's account: over every worker
//   (empty)       nowhere by itself: the module that interprets it reads it by name
//
// A new counter: one line here (reported "instance" sums it into each instance's row) and
// its increment. See docs/engine.md, "Worker counters".
#define ISLANDS_WORKER_COUNTERS(X)                                                                                \
  X(Count, commits, window, sum, "instance run", "transactions", "committed transactions")                         \
  X(PerType, commits_by_type, window, sum, "run", "transactions",                                                  \
    "committed transactions per type of the workload (TATP's seven, TPC-C's NewOrder and Payment, ...; index as "  \
    "the workload numbers them)")                                                                                  \
  X(Count, user_rollbacks, window, sum, "run", "transactions",                                                     \
    "transactions that rolled themselves back (the specification's), not retried")                                 \
  X(PerReason, aborts, window, sum, "instance run", "attempts", "aborted attempts per reason")                     \
  X(Count, multisite_commits, window, sum, "run", "transactions", "committed transactions that spanned instances") \
  X(Count, staged_commits, window, sum, "instance", "transactions",                                                \
    "engine.execution = plp: transactions committed in two stages, their second stage consuming what the first "   \
    "produced (exec/plp/plp_stages.hpp)")                                                                          \
  X(Series, timeline, window, sum, "", "transactions",                                                             \
    "commits per driver.timeline_interval_s of the measured window, from its start (the last interval may be "     \
    "partial; intervals after the last commit are not listed); summed interval by interval")                       \
  X(Count, cpu_ns, window, sum, "instance", "ns",                                                                  \
    "CPU time the worker's thread got from the start of its measured window to its stop (what the window's "       \
    "commits cost, however often the thread was descheduled); 0: no window")                                       \
  X(PerComponent, component_ticks, window, sum, "", "ticks", "timed transactions' cycle-clock ticks per component") \
  X(Count, timed_txns, window, sum, "", "transactions", "transactions timed by the breakdown")                     \
  X(Count, window_ticks, window, sum, "", "ticks", "the worker's own window, start to stop")                       \
  X(Count, checksum, run, sum, "", "value", "sum of values read (keeps reads honest)")                             \
  X(Count, row_updates_all_phases, run, sum, "checks.committed_row_updates", "rows",                              \
    "rows updated by committed transactions, warm-up and window")                                                  \
  X(Count, commits_all_phases, run, sum, "checks.committed_txns", "transactions", "commits in warm-up and window") \
  X(Count, fragments_sent, run, sum, "instance", "messages", "2PC fragments sent as coordinator")                  \
  X(Count, decisions_sent, run, sum, "instance", "messages", "2PC phase-2 decisions sent")                         \
  X(Count, validations_sent, run, sum, "instance", "messages",                                                     \
    "2PC validate requests sent (occ, several participants)")                                                      \
  X(Count, rendezvous_produced, run, sum, "instance", "records",                                                   \
    "engine.execution = plp: records the first stage's actions of staged commits produced")                        \
  X(Count, rendezvous_consumed, run, sum, "instance", "records",                                                   \
    "records the second stage's operations consumed (equal to those produced when every record was used)")         \
  X(Count, stage1_actions_sent, run, sum, "instance", "actions",                                                   \
    "second-stage actions sent to another partition (its consumer not the coordinator's)")                         \
  X(Count, handoffs_sent, run, sum, "instance", "transactions",                                                    \
    "engine.plp_handoff: transactions this worker drew and handed to the owner of their home unit")                \
  X(Count, handoffs_run, run, sum, "instance", "transactions",                                                     \
    "handed transactions this worker coordinated (to commit, rollback or giving up)")                              \
  X(Count, handoffs_dropped, run, sum, "instance", "transactions",                                                 \
    "handed transactions this worker dropped unstarted at the stop (every hand-off is run or dropped once)")       \
  X(Count, messages_sent, run, sum, "instance", "messages", "transport messages sent")                             \
  X(Count, messages_received, run, sum, "instance", "messages", "transport messages received")                     \
  X(Count, messages_delayed, run, sum, "instance", "messages",                                                     \
    "of those received, held back by the injected cross-socket delay")                                             \
  X(Count, malformed_messages, run, sum, "instance", "messages", "malformed records rejected")                      \
  X(Count, cross_socket_accesses, run, sum, "instance", "accesses",                                                \
    "test mode (engine.test_count_cross_socket): accesses to system structures kept by another socket than the "   \
    "worker's (its active-list entry and system-state lock)")                                                      \
  X(Count, log_wait_ns, run, sum, "instance", "ns",                                                                \
    "time blocked on the log: a full pipeline of commits waiting for their flush")                                 \
  X(Count, read_only_waits, run, sum, "instance", "transactions",                                                  \
    "transactions that logged nothing whose acknowledgement waited for what they may have read (the read-only "    \
    "rule of early lock release)")                                                                                 \
  X(Count, read_only_vote_waits, run, sum, "instance", "votes", "read-only 2PC votes that waited so")            \
  X(Series, home_sites, run, each, "", "transactions",                                                             \
    "transactions this worker drew (or, with routed clients, took), by their home's global site: entry i counts "  \
    "site i (driver.clients instance_wide spreads a worker's over its instance's sites, workers keeps them at its " \
    "own); empty under PLP")

// The client layer's part of a worker (driver.clients = closed or open, exec/client_driver.hpp),
// the fields of ClientStats; all zero when every worker is its own client. Requests are
// conserved: over a deployment, submitted - refused + forwarded = taken + what its queues still
// hold, and taken - forwarded = answered + those a worker abandoned at the stop (at most one
// each). Only PLP forwards. Columns as ISLANDS_WORKER_COUNTERS.
#define ISLANDS_CLIENT_COUNTERS(X)                                                                               \
  X(Count, submitted, run, sum, "clients", "requests", "requests this worker's clients submitted")                \
  X(Count, refused, run, sum, "clients", "requests", "of those, refused by a full queue (open loop)")             \
  X(Count, taken, run, sum, "clients", "requests", "requests this worker took from its instance's queue")         \
  X(Count, answered, run, sum, "clients", "requests",                                                             \
    "of those, decided: committed (acknowledged) or rolled back")                                                 \
  X(Count, forwarded, run, sum, "clients", "requests",                                                            \
    "PLP: of those taken, re-routed to the worker that owns their home unit now (it moved after the client "      \
    "routed them)")                                                                                               \
  X(Count, ran_away, run, sum, "clients", "requests",                                                             \
    "PLP: of those taken, run by this worker although another owned their home unit (that owner's queue was "     \
    "full)")                                                                                                      \
  X(Count, stolen, run, sum, "clients", "requests",                                                               \
    "of those taken, taken from a sibling worker's stash (this worker was idle)")                                 \
  X(Count, client_ticks, window, sum, "", "ticks", "cycle-clock ticks spent drawing and submitting requests")     \
  X(Count, idle_ticks, window, sum, "", "ticks", "ticks with no request to take")                                 \
  X(Series, queue_lengths, window, each, "", "requests",                                                          \
    "its instance's queue length once per driver.timeline_interval_s")                                            \
  X(Series, outstanding, window, each, "", "requests",                                                            \
    "at the same samples, between two transactions: the requests this worker took and has not forwarded or "      \
    "answered (taken - forwarded - answered, so far)")                                                            \
  X(Series, pipelined, window, each, "", "requests",                                                              \
    "...and of those, the ones waiting in its commit pipeline for their log flush (nothing is lost between a "    \
    "client and a worker when the two are equal at every sample)")

//! One worker counter as `_core.counters()` describes it (a line of the lists above).
struct CounterSpec {
  const char* name;             //!< its key in a worker's statistics
  const char* group;            //!< "worker": worker[name]; "clients": worker["clients"][name]
  const char* kind;             //!< its shape (counter_shape::*::kind)
  CounterPeriod scope;           //!< measured window or whole run
  CounterAggregate aggregate;   //!< how it adds up over workers
  const char* reported;         //!< where a run's result shows the aggregate (space-separated)
  const char* unit;             //!< what it counts
  const char* doc;              //!< what it means
};

//! Every worker counter: the worker's own, then its client layer's.
inline constexpr CounterSpec kWorkerCounters[] = {
#define ISLANDS_COUNTER_SPEC(shape, name, scope, aggregate, reported, unit, doc)                              \
  {#name, "worker", counter_shape::shape::kind, CounterPeriod::scope, CounterAggregate::aggregate, reported, \
   unit, doc},
    ISLANDS_WORKER_COUNTERS(ISLANDS_COUNTER_SPEC)
#undef ISLANDS_COUNTER_SPEC
#define ISLANDS_COUNTER_SPEC(shape, name, scope, aggregate, reported, unit, doc)                              \
  {#name, "clients", counter_shape::shape::kind, CounterPeriod::scope, CounterAggregate::aggregate, reported, \
   unit, doc},
    ISLANDS_CLIENT_COUNTERS(ISLANDS_COUNTER_SPEC)
#undef ISLANDS_COUNTER_SPEC
};

//! Zeroes a counter of any shape.
inline void zero_counter(std::uint64_t& c) { c = 0; }
//! Empties a series.
inline void zero_counter(std::vector<std::uint64_t>& c) { c.clear(); }
//! Zeroes every entry.
template <std::size_t N>
void zero_counter(std::array<std::uint64_t, N>& c) {
  c.fill(0);
}

}  // namespace islands
