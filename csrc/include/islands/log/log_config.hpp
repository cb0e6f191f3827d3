#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "islands/common/setting_field.hpp"

namespace islands {

//! When a commit is acknowledged relative to its log record.
enum class LogMode {
  off,           //!< no log: nothing survives a crash
  async,         //!< a background flusher writes and syncs every flush interval; commits do not wait
  group_commit,  //!< a commit is acknowledged (counted, told to a client) only once its record is synced
};

template <>
struct EnumNames<LogMode> {
  static constexpr EnumName<LogMode> table[] = {
      {LogMode::off, "off"}, {LogMode::async, "async"}, {LogMode::group_commit, "group_commit"}};
};

//! What the record of a local transaction's commit holds.
enum class LogContent {
  redo,     //!< the after-images of the rows it wrote, applied as written at recovery
  command,  //!< its words (its input), executed again at recovery in log order (command logging)
};

template <>
struct EnumNames<LogContent> {
  static constexpr EnumName<LogContent> table[] = {{LogContent::redo, "redo"}, {LogContent::command, "command"}};
};

//! The fields of LogConfig: F(type, name, default, min, max, help) (see setting_field.hpp).
#define ISLANDS_LOG_FIELDS(F)                                                                               \
  F(LogMode, mode, LogMode::off, kUnbounded, kUnbounded, "off, async or group_commit")                      \
  F(std::string, directory, "", kUnbounded, kUnbounded,                                                    \
    "where the instance logs live (disk or tmpfs); needed unless off")                                     \
  F(double, flush_interval_us, 1000, 0, 1e7, "async: microseconds between flushes")                        \
  F(double, group_delay_us, 200, 0, 1e7,                                                                    \
    "group_commit: microseconds the flusher gathers a group before it flushes; commits do not wake it "    \
    "meanwhile (a waiting worker, a 2PC vote or a half-full buffer do). 0: each group's first commit "     \
    "wakes it and it flushes at once (a system call per commit)")                                          \
  F(std::size_t, buffer_bytes, 1 << 20, 4096, 1 << 30,                                                     \
    "bytes of each of the two log buffers (one fills while the other is written)")                         \
  F(std::uint32_t, max_pending, 1024, 1, 1 << 20,                                                           \
    "group_commit: commits a worker may have waiting for the flush before it waits too")                   \
  F(bool, early_lock_release, true, kUnbounded, kUnbounded,                                                 \
    "group_commit: release a commit's locks once its record is appended, not once it is durable "          \
    "(Aether's ELR); only its acknowledgement waits for the flush")                                         \
  F(bool, flush_on_demand, true, kUnbounded, kUnbounded,                                                    \
    "group_commit: a record another instance or partition waits for (a 2PC prepare before its vote, a "   \
    "decision before phase 2) is written and synced at once by the worker that appended it; false: the "   \
    "flusher thread is asked to (a thread wake-up on the message's path)")                                   \
  F(bool, worker_writes, true, kUnbounded, kUnbounded,                                                      \
    "group_commit with the log on tmpfs or ramfs (where a sync costs nothing): the workers write the groups "  \
    "themselves, the first to see the open group older than group_delay_us (or its buffer half full) writes "  \
    "and syncs it, so no flusher thread is woken on a busy core (the flusher only backs them up); elsewhere, " \
    "or false: the flusher thread writes every group (a worker must not wait out a disk's sync)")            \
  F(LogContent, content, LogContent::redo, kUnbounded, kUnbounded,                                           \
    "what a local commit's record holds: redo (its rows' after-images) or command (its input words, "        \
    "a tenth of TPC-C's bytes, executed again at recovery in log order: command logging; a workload that "     \
    "replays, tpcc, under engine.cc none, 2pl or table_2pl, serializable, not plp; transactions that "       \
    "cannot be replayed, and 2PC's records, stay redo)")                                                     \
  F(bool, checkpoint, true, kUnbounded, kUnbounded,                                                         \
    "after a clean run: snapshot every row and start the log afresh (bounds recovery)")                    \
  F(bool, record_acks, false, kUnbounded, kUnbounded,                                                       \
    "each worker appends the ids of the transactions it acknowledged to acks-<site>.bin (fault tests)")

//! The write-ahead log of every instance of a run: one file per instance in `directory`.
//! early_lock_release is on by default: it is correct (one instance has one log, so whatever
//! read a released row logs its own record later and cannot become durable first; read-only
//! transactions and read-only votes wait for the log's appended LSN, exec/commit_pipeline.hpp)
//! and it is what paper 000's shared-everything runs use (Aether). Off: locks are held
//! through the flush, as before, for comparison (benchmarks/early_lock_release.py).
struct LogConfig {
  ISLANDS_SETTINGS(LogConfig, "log", "Write-ahead log of every instance of a deployment run", ISLANDS_LOG_FIELDS)

  //! Throws ConfigError("log.field", why) for the first invalid field.
  void validate() const;
  bool enabled() const { return mode != LogMode::off; }  //!< whether anything is logged
};

}  // namespace islands
