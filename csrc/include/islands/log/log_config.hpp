#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace islands {

//! When a commit is acknowledged relative to its log record.
enum class LogMode {
  off,           //!< no log: nothing survives a crash
  async,         //!< a background flusher writes and syncs every flush interval; commits do not wait
  group_commit,  //!< a commit is acknowledged (counted, locks released) only once its record is synced
};

const char* log_mode_name(LogMode mode);
//! Throws std::invalid_argument for an unknown name.
LogMode parse_log_mode(const std::string& name);

//! The write-ahead log of every instance of a run: one file per instance in `directory`.
struct LogConfig {
  LogMode mode = LogMode::off;            //!< off, async or group_commit
  std::string directory;                  //!< where the instance logs live (disk or tmpfs); needed unless off
  double flush_interval_us = 1000;        //!< async: time between flushes
  double group_delay_us = 0;              //!< group_commit: how long a flush may wait for its group to grow (0: flush at once)
  std::size_t buffer_bytes = 1 << 20;     //!< each of the two log buffers (one fills while the other is written)
  std::uint32_t max_pending = 64;         //!< group_commit: commits a worker may have waiting for the flush before it waits too
  bool checkpoint = true;                 //!< after a clean run: snapshot every row, start the log afresh (bounds recovery)
  bool record_acks = false;               //!< each worker appends the ids of the transactions it acknowledged to acks-<site>.bin (fault tests)

  //! Throws std::invalid_argument with "log.field: why" for the first invalid field.
  void validate() const;
  bool enabled() const { return mode != LogMode::off; }  //!< whether anything is logged
};

}  // namespace islands
