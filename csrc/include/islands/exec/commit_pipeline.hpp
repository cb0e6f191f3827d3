#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "islands/common/cycle_clock.hpp"
#include "islands/common/fifo_ring.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/log/log_config.hpp"
#include "islands/log/log_recovery.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/log/private_file.hpp"
#include "islands/perf/component_clock.hpp"
#include "islands/txn/txn_context.hpp"

namespace islands {

//! What a committed attempt leaves for its acknowledgement: its log record and, for a
//! coordinator, the participants waiting for phase 2 (internal to exec/worker_loop.hpp).
struct CommitRecord {
  std::uint64_t lsn = 0;               //!< its commit (or decision) record; 0: it logged none
  std::uint64_t txn = 0;               //!< the transaction id the record carries
  std::vector<std::uint32_t> notify;   //!< coordinator: participants waiting for phase 2
};

//! A commit (or a participant's vote) waiting for its log record to be durable.
struct PendingCommit {
  std::uint64_t lsn = 0;                     //!< durable once the log's durable LSN reaches this
  std::uint64_t txn = 0;                     //!< the transaction id its record carries (0: read-only)
  std::unique_ptr<TxnContext> ctx;           //!< its locks and images (null: released already, or the worker's current one)
  std::vector<std::uint32_t> notify;         //!< coordinator: participants waiting for phase 2
  std::uint64_t start = 0;                   //!< first attempt (client layer: submission), cycle clock
  std::uint32_t client = 0;                  //!< the client layer's client to answer (with `answer`)
  bool answer = false;                       //!< a client layer's request: answer its client once acknowledged
  std::uint64_t rows = 0;                    //!< rows it updated
  std::size_t type = 0;                      //!< the workload's transaction type
  bool distributed = false;                  //!< it had fragments at other instances
  bool released = false;                     //!< its locks are released already (early lock release, or read-only)
  bool read_only = false;                    //!< it logged nothing: `lsn` is the log's end it may have read
  bool vote = false;                         //!< a participant's vote rather than a commit
  std::uint8_t vote_value = 0;               //!< the vote (kVoteCommit, or kVoteReadOnly after a dependency wait)
  std::uint32_t vote_to = 0;                 //!< the coordinator's site
};

//! The acknowledgement file's entry for a read-only transaction that waited: this tag in the
//! top 16 bits (no site has this number, so no transaction id has it), the LSN it waited for
//! below (tests/log_checks.py checks that the log kept it).
inline constexpr std::uint64_t kReadOnlyAckTag = 0xffffULL << 48;

//! One worker's commit pipeline (internal to exec/worker_loop.hpp): the commits and votes
//! waiting for their log flush, oldest first, and the driver's acknowledgement file
//! (acks-<site>.bin). What acknowledging means (phase 2, locks released, counted, the vote
//! sent) is the worker's: it passes it in as `acknowledge(PendingCommit&)`, inlined.
//!
//! Early lock release (log.early_lock_release, group commit only; Aether's ELR): a local
//! commit releases its locks as soon as its commit record is appended and waits here only for
//! its acknowledgement (counted, recorded in the acknowledgement file, told to a client). This
//! is correct because an instance has one log whose order is commit order: a transaction that
//! read or overwrote the released rows logs its own record after this one, so it cannot
//! become durable (and be acknowledged) before it; a crash loses it together with this one.
//! A transaction that logs nothing (read-only) has no later record to order it: the
//! read-only rule (read_dependency) makes it wait, before its acknowledgement, for the log's
//! appended LSN at the moment it finished whenever that is not yet durable (conservative: it
//! may have read any record appended so far; a per-row LSN would be finer and costs a word
//! per row). Where readers can see rows whose record is not durable, the rule is on: with
//! early lock release, and in an instance without locks (cc none), whose local transactions
//! never held any. Off (2PL, early_lock_release off) a reader could only read durable rows.
//! The counterparts at a 2PC participant and coordinator are in exec/two_phase_commit.hpp.
class CommitPipeline {
 public:
  CommitPipeline() = default;
  CommitPipeline(const CommitPipeline&) = delete;
  CommitPipeline& operator=(const CommitPipeline&) = delete;
  ~CommitPipeline() {
    if (ack_fd_ >= 0) ::close(ack_fd_);
  }

  //! Starts the pipeline of worker `site` on `log` (null: the log is off, nothing ever waits);
  //! opens the acknowledgement file when config.record_acks. Waits are added to stats.log_wait_ns.
  //! `locks`: the instance's local transactions take locks (2PL; false: cc none).
  void open(LogWriter* log, const LogConfig& config, std::uint32_t site, WorkerStats& stats, double ns_per_tick,
            bool locks) {
    log_ = log;
    group_commit_ = log != nullptr && config.mode == LogMode::group_commit;
    early_release_ = group_commit_ && config.early_lock_release;
    read_rule_ = group_commit_ && (config.early_lock_release || !locks);
    max_pending_ = config.max_pending;
    flush_on_demand_ = config.flush_on_demand;
    stats_ = &stats;
    ns_per_tick_ = ns_per_tick;
    if (log != nullptr && config.record_acks) open_ack_file(ack_file_path(config.directory, site));
  }

  //! Whether a commit (or vote) whose record is `lsn` must wait in the pipeline: group commit
  //! and its record not yet durable.
  bool must_wait(std::uint64_t lsn) const { return group_commit_ && lsn > log_->durable_lsn(); }
  //! Whether a commit releases its locks once its record is appended (see the class comment).
  bool early_release() const { return early_release_; }
  //! The read-only rule: the LSN a transaction that logged nothing (or a read-only vote) must
  //! see durable before its acknowledgement: the log's appended LSN now, when readers may see
  //! rows whose record is not durable and it is not durable yet; else 0 (nothing to wait for).
  //! Call after the transaction read its rows.
  std::uint64_t read_dependency() const {
    if (!read_rule_) return 0;
    const std::uint64_t appended = log_->appended_lsn();
    return appended > log_->durable_lsn() ? appended : 0;
  }
  //! Whether a vote or a decision with participants is flushed here, at once, by push()
  //! (log.flush_on_demand in group commit): its record is appended with flush_here.
  bool flushes_on_demand() const { return group_commit_ && flush_on_demand_; }
  //! Whether nothing is waiting.
  bool empty() const { return pending_.empty(); }
  //! The client requests waiting (commits to answer once acknowledged).
  std::size_t answers_waiting() const { return answers_waiting_; }
  //! Queues a commit or vote behind the ones already waiting. A vote, or a coordinator's
  //! decision with participants waiting for phase 2, holds up another instance: it asks for
  //! its flush at once rather than at the end of a gathering flusher's group delay.
  //! With log.flush_on_demand (the default) this worker writes and syncs the group itself, now:
  //! the waiter is another worker, which nothing this worker could append meanwhile would help
  //! (the flusher's wake-up cost a distributed update tens of microseconds on a busy core);
  //! returns true when that left it durable (drain() acknowledges it at once). Durability is
  //! the same either way: the vote or phase 2 still goes out only once the record is durable.
  //! `clock`: the worker's component clock, on which the flush is charged to logging.
  bool push(PendingCommit&& waiting, ComponentClock* clock = nullptr) {
    bool flushed = false;
    if (waiting.vote || !waiting.notify.empty()) {
      if (flush_on_demand_) {
        ComponentScope logging(clock, Component::logging);
        log_->flush_now();
        flushed = waiting.lsn <= log_->durable_lsn();
      } else {
        log_->request_flush();
      }
    }
    if (waiting.answer) ++answers_waiting_;
    pending_.push_back(std::move(waiting));
    return flushed;
  }

  //! Acknowledges, oldest first, every pipelined commit whose record is durable (writing the
  //! open group first when the workers write the groups and it is due: LogWriter::flush_if_due).
  template <class Acknowledge>
  void drain(Acknowledge&& acknowledge) {
    if (pending_.empty()) return;
    std::uint64_t durable = log_->durable_lsn();
    // Worker writes (log.worker_writes): this worker writes the group itself once it is due.
    if (pending_.front().lsn > durable && log_->flush_if_due()) durable = log_->durable_lsn();
    bool any = false;
    while (!pending_.empty() && pending_.front().lsn <= durable) {
      if (pending_.front().answer) --answers_waiting_;
      acknowledge(pending_.front());
      pending_.pop_front();
      any = true;
    }
    if (any && ack_fd_ >= 0) write_acks();
    if (!pending_.empty() && log_->failed()) log_->check();  // full disk, I/O error: stop here
  }

  //! Bounds the pipeline: past max_pending commits waiting for their flush, serve and wait.
  //! `serve()` serves one message or, when there is none, waits a moment (throwing when the
  //! instance failed); the time is logging on `clock` and log_wait_ns.
  template <class Serve, class Acknowledge>
  void wait_for_room(ComponentClock* clock, Serve&& serve, Acknowledge&& acknowledge) {
    if (pending_.size() < max_pending_) return;
    // A gathering flusher need not wait out its group delay; with worker writes, write it here.
    if (!log_->workers_write() || !log_->flush_now()) log_->request_flush();
    ComponentScope logging(clock, Component::logging);
    const std::uint64_t t0 = CycleClock::now();
    while (pending_.size() >= max_pending_) {
      serve();
      drain(acknowledge);
    }
    stats_->log_wait_ns += static_cast<std::uint64_t>(static_cast<double>(CycleClock::now() - t0) * ns_per_tick_);
  }

  //! Records an acknowledged commit that logged a record in the acknowledgement file (if any).
  //! A read-only transaction that waited is recorded as kReadOnlyAckTag | the LSN it waited
  //! for, and written at once: its entry says what a client was told and when, as exactly as a
  //! fault test needs to catch an acknowledgement that came before its dependency was durable.
  void record_ack(const PendingCommit& done) {
    if (ack_fd_ >= 0 && done.lsn != 0) {
      acks_.push_back(done.read_only ? kReadOnlyAckTag | (done.lsn & ~kReadOnlyAckTag) : done.txn);
      if (done.read_only || acks_.size() >= 512) write_acks();
    }
  }

  //! Writes the acknowledgements not yet written and closes the file.
  void close() {
    if (ack_fd_ >= 0) {
      write_acks();
      ::close(ack_fd_);
      ack_fd_ = -1;
    }
  }

 private:
  void open_ack_file(const std::string& path) {
    ack_fd_ = open_private_file(path, O_WRONLY | O_CREAT | O_APPEND, "log.record_acks");
  }

  // The driver's own record of what it acknowledged, written after the acknowledgement and
  // independent of the log (a killed process loses only what was not yet written here).
  void write_acks() {
    if (acks_.empty()) return;
    const ssize_t n = ::write(ack_fd_, acks_.data(), 8 * acks_.size());
    if (n != static_cast<ssize_t>(8 * acks_.size())) throw std::runtime_error("log.record_acks: writing the acknowledgements failed");
    acks_.clear();
  }

  LogWriter* log_ = nullptr;
  bool group_commit_ = false;
  bool early_release_ = false;  // log.early_lock_release in group commit
  bool read_rule_ = false;      // read-only transactions wait for the appended LSN
  bool flush_on_demand_ = true; // log.flush_on_demand: a vote or a decision with participants flushes here
  std::size_t max_pending_ = 0;
  WorkerStats* stats_ = nullptr;
  double ns_per_tick_ = 1;
  FifoRing<PendingCommit> pending_;
  std::size_t answers_waiting_ = 0;  // of pending_, client requests (answer set)
  std::vector<std::uint64_t> acks_;
  int ack_fd_ = -1;
};

}  // namespace islands
