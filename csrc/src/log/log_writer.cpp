#include "islands/log/log_writer.hpp"

#include "islands/common/spin_latch.hpp"
#include "islands/log/private_file.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace islands {

LogWriter::LogWriter(const LogConfig& config, const std::string& path, std::uint64_t base_lsn,
                     std::uint64_t valid_bytes, std::uint32_t epoch)
    : config_(config), path_(path) {
  // A write past RLIMIT_FSIZE must fail with EFBIG, not kill the process with SIGXFSZ.
  signal(SIGXFSZ, SIG_IGN);
  fd_ = open_private_file(path, O_WRONLY | O_CREAT, "log");
  buffers_[0].resize(config.buffer_bytes);
  buffers_[1].resize(config.buffer_bytes);
  if (valid_bytes == 0) {
    next_lsn_ = base_lsn;
    if (::ftruncate(fd_, 0) != 0) {
      const int e = errno;
      ::close(fd_);
      throw std::runtime_error("log: cannot truncate " + path + ": " + std::strerror(e));
    }
    unsigned char header[sizeof(LogRecordHeader)];
    encode_log_record(header, LogRecordType::file_header, base_lsn, 0, 0, 0, nullptr, 0, nullptr, 0);
    if (!write_all(header, sizeof header) || ::fdatasync(fd_) != 0) {
      const std::string why = error_.empty() ? std::strerror(errno) : error_;
      ::close(fd_);
      throw std::runtime_error("log: cannot write the header of " + path + ": " + why);
    }
    next_lsn_ += sizeof header;
  } else {
    // Cut a torn tail so that new records follow the last valid one directly.
    if (::ftruncate(fd_, static_cast<off_t>(valid_bytes)) != 0 ||
        ::lseek(fd_, static_cast<off_t>(valid_bytes), SEEK_SET) < 0 || ::fdatasync(fd_) != 0) {
      const int e = errno;
      ::close(fd_);
      throw std::runtime_error("log: cannot reopen " + path + " for appending: " + std::strerror(e));
    }
    next_lsn_ = base_lsn + valid_bytes;
  }
  // The epoch record: durable before any transaction id of this epoch can exist anywhere.
  unsigned char record[sizeof(LogRecordHeader)];
  encode_log_record(record, LogRecordType::epoch, next_lsn_, 0, epoch, 0, nullptr, 0, nullptr, 0);
  if (!write_all(record, sizeof record) || ::fdatasync(fd_) != 0) {
    const int e = errno;
    ::close(fd_);
    throw std::runtime_error("log: cannot write to " + path + ": " + std::strerror(e));
  }
  next_lsn_ += sizeof record;
  appended_lsn_.store(next_lsn_);
  durable_lsn_.store(next_lsn_);
  // Worker writes only where a sync costs nothing: on a disk a worker would wait out the sync.
  struct statfs fs;
  const bool sync_free = ::fstatfs(fd_, &fs) == 0 && (static_cast<unsigned long>(fs.f_type) == TMPFS_MAGIC ||
                                                      static_cast<unsigned long>(fs.f_type) == RAMFS_MAGIC);
  workers_write_ = config.mode == LogMode::group_commit && config.worker_writes && sync_free;
  const double ns_per_tick = CycleClock::ns_per_tick();
  delay_ticks_ = static_cast<std::uint64_t>(config.group_delay_us * 1e3 / ns_per_tick);
  backstop_ticks_ = static_cast<std::uint64_t>(std::max(1000.0, 5 * config.group_delay_us) * 1e3 / ns_per_tick);
  flusher_ = std::thread([this] { flusher_main(); });
}

LogWriter::~LogWriter() {
  try {
    close();
  } catch (...) {
  }
}

void LogWriter::close() {
  {
    std::lock_guard<SpinMutex> lock(latch_);
    stop_ = true;
  }
  has_data_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  check();
}

std::uint64_t LogWriter::append(LogRecordType type, std::uint64_t txn, std::uint32_t aux, std::uint16_t columns,
                                const void* p1, std::size_t n1, const void* p2, std::size_t n2, bool flush_here) {
  const std::size_t size = log_record_size(n1 + n2);
  if (size > config_.buffer_bytes) {
    throw std::runtime_error("log.buffer_bytes: a " + std::to_string(size) + "-byte record does not fit in a " +
                             std::to_string(config_.buffer_bytes) + "-byte log buffer");
  }
  std::unique_lock<SpinMutex> lock(latch_);
  if (used_ + size > config_.buffer_bytes) {
    ++stats_.buffer_waits;
    ++waiters_;
    has_data_.notify_one();
    has_space_.wait(lock, [&] { return used_ + size <= config_.buffer_bytes || failed_.load(); });
    --waiters_;
  }
  if (failed_.load()) {
    lock.unlock();
    check();
  }
  // Reserve the record's place under the latch; encode it (copy and checksum) after, so that
  // workers of one instance hold the latch for a few stores each rather than for the copy.
  const bool was_empty = used_ == 0;
  const std::uint64_t lsn = next_lsn_;
  const int buffer = filling_;
  unsigned char* const at = buffers_[buffer].data() + used_;
  const std::size_t half = config_.buffer_bytes / 2;
  const bool crossed_half = used_ < half && used_ + size >= half;
  used_ += size;
  next_lsn_ += size;
  encoding_[buffer].fetch_add(1, std::memory_order_relaxed);  // the latch orders it before a swap
  appended_lsn_.store(next_lsn_, std::memory_order_release);
  ++records_;
  bytes_ += size;
  // Group commit wakes the flusher for the first record of a group only when it flushes at
  // once (group_delay_us 0) or sleeps for want of data; a gathering flusher wakes on its
  // timer, so that a busy worker makes no system call per commit. Async wakes on its interval.
  // Either wakes early for a buffer half full.
  // A record its appender flushes itself at once (flush_here) wakes nobody for its group.
  // Worker writes wake nobody: the workers poll the group's age (flush_if_due).
  if (workers_write_) {
    if (was_empty) group_opened_.store(CycleClock::now(), std::memory_order_relaxed);
    if (crossed_half) group_opened_.store(1, std::memory_order_relaxed);  // due at once
  }
  const bool wake = !workers_write_ && (crossed_half || (was_empty && !flush_here && config_.mode == LogMode::group_commit &&
                                                         (config_.group_delay_us <= 0 || flusher_idle_)));
  lock.unlock();
  encode_log_record(at, type, lsn, txn, aux, columns, p1, n1, p2, n2);
  encoding_[buffer].fetch_sub(1, std::memory_order_release);  // the flusher may write it now
  if (wake) has_data_.notify_one();
  return lsn + size;
}

void LogWriter::request_flush() {
  {
    std::lock_guard<SpinMutex> lock(latch_);
    if (used_ == 0) return;
    flush_requested_ = true;
  }
  has_data_.notify_one();
}

void LogWriter::check() const {
  if (failed_.load(std::memory_order_acquire)) {
    std::lock_guard<SpinMutex> lock(latch_);
    throw std::runtime_error(error_);
  }
}

void LogWriter::wait_durable(std::uint64_t lsn) {
  std::unique_lock<SpinMutex> lock(latch_);
  ++waiters_;
  has_data_.notify_one();
  flushed_.wait(lock, [&] { return durable_lsn_.load() >= lsn || failed_.load(); });
  --waiters_;
  if (durable_lsn_.load() < lsn) {
    lock.unlock();
    check();
  }
}

LogWriterStats LogWriter::stats() const {
  std::lock_guard<SpinMutex> lock(latch_);
  LogWriterStats stats = stats_;
  stats.records = records_;
  stats.bytes = bytes_;
  return stats;
}

void LogWriter::fail(const std::string& what, int error) {
  std::lock_guard<SpinMutex> lock(latch_);
  error_ = "log: " + what + " " + path_ + " failed: " + std::strerror(error) +
           "; the instance stops taking commits (everything acknowledged is durable up to LSN " +
           std::to_string(durable_lsn_.load()) + ")";
  failed_.store(true, std::memory_order_release);
}

bool LogWriter::write_all(const unsigned char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t done = ::write(fd_, data, n);
    if (done < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (done == 0) {
      errno = ENOSPC;
      return false;
    }
    data += done;
    n -= static_cast<std::size_t>(done);
  }
  return true;
}

bool LogWriter::flush_now() {
  std::unique_lock<SpinMutex> lock(latch_);
  if (used_ == 0 || failed_.load()) return false;
  if (flushing_) {
    // A flush is being written (by the flusher or another waiter): ask for the next at once
    // rather than wait here; the flusher takes it as soon as that write ends.
    flush_requested_ = true;
    lock.unlock();
    has_data_.notify_one();
    return false;
  }
  ++stats_.flushes_on_demand;
  write_group(lock);
  return true;
}

bool LogWriter::flush_due() {
  std::unique_lock<SpinMutex> lock(latch_);
  if (used_ == 0 || flushing_ || failed_.load()) return false;
  // Another worker may have written the group meanwhile and a younger one opened since.
  const std::uint64_t opened = group_opened_.load(std::memory_order_relaxed);
  if (opened == 0 || (opened != 1 && CycleClock::now() - opened < delay_ticks_)) return false;
  ++stats_.flushes_by_workers;
  return write_group(lock);
}

bool LogWriter::write_group(std::unique_lock<SpinMutex>& lock) {
  // Take the filled buffer; appenders continue in the other one while this one is written.
  // One write at a time (flushing_), so the file grows in LSN order and the buffer handed to
  // the appenders is never one still being written.
  const int full = filling_;
  const std::size_t n = used_;
  const std::uint64_t end = next_lsn_;
  filling_ ^= 1;
  used_ = 0;
  group_opened_.store(0, std::memory_order_relaxed);
  flushing_ = true;
  flush_requested_ = false;
  lock.unlock();
  has_space_.notify_all();
  // Appenders that reserved their place in this buffer before the swap may still be
  // encoding their records: a few hundred nanoseconds, unless one was descheduled.
  for (int spins = 0; encoding_[full].load(std::memory_order_acquire) != 0; ++spins) {
    if (spins < 1000) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  const bool ok = write_all(buffers_[full].data(), n);
  const int write_error = errno;
  const bool synced = ok && ::fdatasync(fd_) == 0;
  const int sync_error = errno;
  const auto t1 = std::chrono::steady_clock::now();
  if (!synced) {
    fail(ok ? "syncing" : "writing", ok ? sync_error : write_error);
    lock.lock();
    flushing_ = false;
    lock.unlock();
    has_space_.notify_all();
    flushed_.notify_all();
    has_data_.notify_all();  // a flusher waiting for this write stops
    lock.lock();
    return false;
  }
  lock.lock();
  flushing_ = false;
  ++stats_.flushes;
  stats_.flush_ns += static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  durable_lsn_.store(end, std::memory_order_release);
  flushed_.notify_all();
  if (flusher_waits_write_) has_data_.notify_all();  // the flusher waits for this write to take the next group
  return true;
}

void LogWriter::flusher_main() {
  // Its CPU time goes into the statistics when it stops, however it stops (the lock is held then).
  struct CpuTime {
    LogWriterStats& stats;
    ~CpuTime() {
      timespec ts{};
      if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) {
        stats.flusher_cpu_ns = static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
      }
    }
  };
  const auto interval = std::chrono::nanoseconds(static_cast<std::int64_t>(config_.flush_interval_us * 1000));
  const auto group_delay = std::chrono::nanoseconds(static_cast<std::int64_t>(config_.group_delay_us * 1000));
  const auto backstop = std::chrono::nanoseconds(static_cast<std::int64_t>(std::max(1000.0, 5 * config_.group_delay_us) * 1000));
  std::unique_lock<SpinMutex> lock(latch_);
  const CpuTime cpu_time{stats_};  // destroyed before the lock: recorded under it
  for (;;) {
    if (config_.mode == LogMode::async) {
      // Asynchronous: one flush per interval whatever arrives (sooner only when a buffer fills
      // or someone waits).
      has_data_.wait_for(lock, interval, [&] {
        return stop_ || (used_ > 0 && (waiters_ > 0 || used_ * 2 >= config_.buffer_bytes));
      });
    } else if (workers_write_) {
      // The workers write the groups (flush_if_due): this thread takes over only what must not
      // wait for them (a waiter, a request, closing) or a group none of them took in time.
      // A waiter or a request counts only while there is a group to write: a waiter whose
      // records a worker wrote meanwhile still counts in waiters_ until it takes the latch, and
      // a flusher that took that for work would loop without ever releasing the latch to it.
      const auto urgent = [&] { return stop_ || (used_ > 0 && (waiters_ > 0 || flush_requested_)); };
      if (!urgent()) {
        has_data_.wait_for(lock, backstop, urgent);
        if (!urgent()) {
          const std::uint64_t opened = group_opened_.load(std::memory_order_relaxed);
          if (used_ == 0 || opened == 0 || (opened != 1 && CycleClock::now() - opened < backstop_ticks_)) continue;
        }
      }
    } else {
      if (used_ == 0 && !stop_) {
        // Nothing to flush: sleep until an append wakes this thread.
        flusher_idle_ = true;
        has_data_.wait(lock, [&] { return used_ > 0 || stop_; });
        flusher_idle_ = false;
      }
      const auto urgent = [&] {
        return stop_ || waiters_ > 0 || flush_requested_ || used_ >= config_.buffer_bytes / 2;
      };
      if (group_delay.count() > 0 && !urgent()) {
        // Let the group grow, but no longer than the delay (or until someone waits for it).
        has_data_.wait_for(lock, group_delay, urgent);
      }
    }
    // A waiter may be writing a group itself (flush_now): the next one starts after it.
    if (flushing_) {
      flusher_waits_write_ = true;
      has_data_.wait(lock, [&] { return !flushing_ || failed_.load(); });
      flusher_waits_write_ = false;
    }
    if (failed_.load()) return;
    if (used_ == 0) {
      if (stop_) break;
      continue;
    }
    if (!write_group(lock)) return;
  }
}

}  // namespace islands
