#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "islands/common/cycle_clock.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/log/log_config.hpp"
#include "islands/log/log_record.hpp"

namespace islands {

//! What one instance's log did in a run.
struct LogWriterStats {
  std::uint64_t records = 0;    //!< records appended
  std::uint64_t bytes = 0;      //!< bytes appended
  std::uint64_t flushes = 0;    //!< write + fdatasync rounds
  std::uint64_t flush_ns = 0;   //!< time spent in them
  std::uint64_t buffer_waits = 0;  //!< appends that waited for a free buffer
  std::uint64_t flushes_on_demand = 0;  //!< of flushes, those written by a waiter itself (flush_now)
  std::uint64_t flushes_by_workers = 0;  //!< of flushes, those written by a worker whose group was due (flush_if_due)
  std::uint64_t flusher_cpu_ns = 0;  //!< CPU time of the flusher thread, once it stopped (close())
};

//! One instance's write-ahead log: a consolidated buffer that every worker of the instance
//! appends to, and a flusher thread that writes and syncs it. An append reserves its place
//! under a spin latch (a few stores) and encodes its record (copy, checksum) outside it; the flusher writes a
//! buffer once every record reserved in it is encoded. Two buffers alternate: workers
//! fill one while the flusher writes the other (flush pipelining: a worker never waits for a
//! sync unless it chooses to, and a sync covers every record appended before it started).
//! Worker writes (log.worker_writes, group commit on tmpfs or ramfs, where a sync costs
//! nothing): no thread is woken per group. The workers poll (flush_if_due, a clock read and a
//! compare) and the first to find the open group older than the group delay, or its buffer
//! half full, writes and syncs it itself; on a 2-core machine the flusher's wake-ups (a
//! context switch on a busy core every group) cost more than the write. The flusher stays as
//! a backstop: waiters, flush requests, a full buffer, and a group no worker took within
//! max(1 ms, 5 group delays). Durability is the same: durable_lsn moves only after the sync.
//! A failed write or sync (full disk, file size limit, I/O error) stops the log for good:
//! durable_lsn never moves again and append() and wait_durable() throw with the reason.
class LogWriter {
 public:
  //! Opens `path` for appending after its first `valid_bytes` bytes (cutting anything after
  //! them), or creates it with a file header at `base_lsn` when `valid_bytes` is 0; logs and
  //! syncs an epoch record; starts the flusher. Throws std::runtime_error when the file cannot
  //! be opened or written.
  LogWriter(const LogConfig& config, const std::string& path, std::uint64_t base_lsn, std::uint64_t valid_bytes,
            std::uint32_t epoch);
  //! Flushes what was appended (errors are swallowed here: call close() to see them) and stops.
  ~LogWriter();
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  //! Appends one record (payload = p1 then p2); returns the LSN just past it: the record is
  //! durable once durable_lsn() reaches that. `flush_here`: the caller flushes it at once
  //! (flush_now), so an idle flusher is not woken for it (a futex call and a thread on a busy
  //! core for nothing). Thread-safe.
  std::uint64_t append(LogRecordType type, std::uint64_t txn, std::uint32_t aux, std::uint16_t columns,
                       const void* p1, std::size_t n1, const void* p2 = nullptr, std::size_t n2 = 0,
                       bool flush_here = false);
  //! The LSN just past the last record appended so far (durable or not). A thread that saw
  //! data released after its commit record was appended (early lock release: the release
  //! happens after the append, the reader's lock acquire after the release) reads at least
  //! that record's end here.
  std::uint64_t appended_lsn() const { return appended_lsn_.load(std::memory_order_acquire); }
  //! Every byte before this LSN is written and synced.
  std::uint64_t durable_lsn() const { return durable_lsn_.load(std::memory_order_acquire); }
  //! Whether the log stopped after a failed write or sync.
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  //! Throws std::runtime_error with the reason when the log failed.
  void check() const;
  //! Blocks until `lsn` is durable; throws if the log fails first.
  void wait_durable(std::uint64_t lsn);
  //! Asks for a flush of what is appended now without waiting for it (a gathering flusher
  //! flushes at once instead of at the end of its group delay). Thread-safe.
  void request_flush();
  //! Writes and syncs what is appended now in the calling thread, without waiting for the
  //! group delay or waking the flusher (a 2PC prepare or decision that another instance waits
  //! for: nothing else can join its group sooner than now). When a write is under way already
  //! it asks for the next flush at once instead (request_flush) and returns false; true when
  //! this call wrote a group. Throws nothing: a failed write fails the log (check()).
  //! Thread-safe; the group written holds every record reserved before it, as the flusher's.
  bool flush_now();
  //! Worker writes (class comment): writes and syncs the open group in the calling thread when
  //! it is due (older than the group delay, or its buffer half full) and no write is under way;
  //! true when this call wrote one. Cheap when not due (no lock, no system call); always false
  //! when the workers do not write (log.worker_writes off, async, or a file system with a real
  //! sync). Throws nothing: a failed write fails the log (check()). Thread-safe.
  bool flush_if_due() {
    if (!workers_write_) return false;
    const std::uint64_t opened = group_opened_.load(std::memory_order_relaxed);
    if (opened == 0 || CycleClock::now() - opened < delay_ticks_) return false;
    return flush_due();
  }
  //! Whether the workers write the groups (flush_if_due) rather than the flusher thread.
  bool workers_write() const { return workers_write_; }
  //! Flushes everything, stops the flusher and closes the file; throws if the log failed.
  void close();
  //! What the log did so far.
  LogWriterStats stats() const;
  const std::string& path() const { return path_; }  //!< the log file

 private:
  void flusher_main();
  bool flush_due();  // flush_if_due's write, out of line
  // With the latch held, used_ > 0 and no write under way: takes the filling buffer, writes and
  // syncs it with the latch released, publishes durable_lsn; returns with the latch held; false
  // when the write or sync failed (the log has failed).
  bool write_group(std::unique_lock<SpinMutex>& lock);
  void fail(const std::string& what, int error);
  bool write_all(const unsigned char* data, std::size_t n);

  // Set once at construction, read by every append and poll.
  LogConfig config_;
  std::string path_;
  int fd_ = -1;
  std::vector<unsigned char> buffers_[2];
  bool workers_write_ = false;          // log.worker_writes in effect (group commit, a sync that costs nothing)
  std::uint64_t delay_ticks_ = 0;       // the group delay in CycleClock ticks
  std::uint64_t backstop_ticks_ = 0;    // worker writes: how old a group the flusher takes over

  // What every append writes, in one cache line with the latch that guards it: an append after
  // another core's moves that one line, where a futex mutex with these fields spread over
  // several lines moved each, and made a second core sleep in the kernel while the first held
  // it. The rest of the state is guarded by the same latch.
  alignas(64) mutable SpinMutex latch_;
  int filling_ = 0;                     // the buffer appenders fill
  std::size_t used_ = 0;                // bytes in it
  std::uint64_t next_lsn_ = 0;          // LSN of the next record
  std::atomic<int> encoding_[2] = {0, 0};  // appenders still encoding into each buffer
  std::atomic<std::uint64_t> appended_lsn_{0};  // next_lsn_, readable without the latch
  std::uint64_t records_ = 0;           // records appended (stats().records)
  std::uint64_t bytes_ = 0;             // bytes appended (stats().bytes)

  // Written once a group (by its first append, or its write), read by every worker's poll.
  // Worker writes: the tick at which the open group's first record was appended (0: the buffer
  // is empty; 1: due at once, its buffer is half full); written under the latch, read without.
  alignas(64) std::atomic<std::uint64_t> group_opened_{0};
  alignas(64) std::atomic<std::uint64_t> durable_lsn_{0};
  std::atomic<bool> failed_{false};

  // The slow paths' state: written per group or per wait, under the latch.
  alignas(64) bool flushing_ = false;   // the other buffer is being written (by the flusher or flush_now)
  bool stop_ = false;
  int waiters_ = 0;                     // threads blocked until the next flush (async flushes early for them)
  bool flush_requested_ = false;        // request_flush(): flush without waiting for the group delay
  bool flusher_waits_write_ = false;   // the flusher waits for a flush_now's write to end
  bool flusher_idle_ = false;           // the flusher sleeps until an append wakes it (nothing to flush)
  LogWriterStats stats_;                // all but records and bytes
  std::string error_;
  std::condition_variable_any has_data_;    // flusher waits here
  std::condition_variable_any has_space_;   // appenders wait here for a free buffer
  std::condition_variable_any flushed_;     // wait_durable waits here
  std::thread flusher_;
};

}  // namespace islands
