#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "islands/common/abort_reason.hpp"
#include "islands/common/latency_histogram.hpp"
#include "islands/log/log_recovery.hpp"
#include "islands/log/log_writer.hpp"

namespace islands {

//! What one worker did in the measured window (and a few whole-run totals for checks).
struct WorkerStats {
  int cpu = -1;                                    //!< CPU the worker was pinned to (-1: not pinned)
  int observed_cpu = -1;                           //!< CPU it was running on when it stopped
  std::uint64_t site = 0;                          //!< the worker's home site
  std::uint64_t commits = 0;                       //!< committed transactions
  std::array<std::uint64_t, kNumAbortReasons> aborts{};  //!< aborted attempts per reason
  LatencyHistogram latency;                        //!< first attempt to commit, ns
  std::uint64_t checksum = 0;                      //!< sum of values read (keeps reads honest)
  std::uint64_t commits_all_phases = 0;            //!< commits in warm-up and window
  std::uint64_t row_updates_all_phases = 0;        //!< rows updated by committed txns, all phases
  std::uint64_t multisite_commits = 0;             //!< committed transactions that spanned instances
  std::uint64_t fragments_sent = 0;                //!< 2PC fragments sent as coordinator, whole run
  std::uint64_t decisions_sent = 0;                //!< 2PC phase-2 decisions sent, whole run
  std::uint64_t messages_sent = 0;                 //!< transport messages sent, whole run
  std::uint64_t messages_received = 0;             //!< transport messages received, whole run
  std::uint64_t malformed_messages = 0;            //!< malformed records rejected, whole run
  std::uint64_t log_wait_ns = 0;                   //!< time blocked on the log: a full pipeline of commits waiting for their flush, whole run

  //! Zeroes the measured-window counters (not the all-phase totals).
  void reset_window() {
    commits = 0;
    multisite_commits = 0;
    aborts.fill(0);
    latency.clear();
  }
};

//! Outcome of one run.
struct RunStats {
  std::vector<WorkerStats> workers;   //!< one per worker, in config order
  double load_s = 0;                  //!< seconds to build the tables and indexes
  double measured_s = 0;              //!< length of the measured window
  std::int64_t payload_sum_before = 0;  //!< sum of column 0 over all rows after loading
  std::int64_t payload_sum_after = 0;   //!< the same sum after the run
  RecoveryStats recovery;               //!< what recovery did before the run (restart)
  LogWriterStats log;                   //!< what the log did during the run
  std::uint64_t log_durable_lsn = 0;    //!< log LSN durable at the end of the run

  std::uint64_t commits() const;        //!< all workers' measured commits
  std::uint64_t aborts() const;         //!< all workers' measured aborts
  LatencyHistogram latency() const;     //!< all workers' latencies merged
};

}  // namespace islands
