// The log's group-commit handoff with real threads: appenders append commit records to one
// LogWriter in group-commit mode and wait for durability, while its flusher swaps and syncs
// the two buffers (small ones, so that appenders also wait for a free buffer). Every
// acknowledged LSN must be durable (<= durable_lsn) when wait_durable returns, and reading the
// file back must find every acknowledged record exactly once, intact, where its LSN says.
// appended_lsn (what early lock release's read-only rule waits for) is never behind a record
// its appender saw appended, and never behind durable_lsn. All of it twice: a flusher that
// flushes at once (each group's first append wakes it) and one that gathers for a group delay
// (appends do not wake it; a waiting appender does). A requested flush does not wait out the
// delay; appenders that flush on demand (flush_now) share the file with the flusher. With the
// log on tmpfs (/dev/shm) the appenders write their groups themselves (log.worker_writes:
// flush_if_due) and nothing else changes. The CPU's CRC-32C instruction gives the portable
// tables' values.
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/log/crc32c.hpp"
#include "islands/log/log_record.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/log/redo_entry.hpp"

using namespace islands;

namespace {

constexpr int kAppenders = 4;
constexpr std::uint32_t kCommitsPerAppender = 300;
constexpr std::uint64_t kBaseLsn = 4096;
constexpr std::uint32_t kEpoch = 3;

// Transaction `txn`'s redo: 1 to 3 rows whose keys and columns derive from txn.
std::vector<unsigned char> redo_of(std::uint64_t txn) {
  std::vector<unsigned char> redo;
  const int rows = 1 + static_cast<int>(txn % 3);
  for (int r = 0; r < rows; ++r) {
    std::int32_t image[5];
    const std::size_t columns = 1 + (txn + r) % 5;
    for (std::size_t c = 0; c < columns; ++c) image[c] = static_cast<std::int32_t>(txn * 31 + r * 7 + c);
    append_redo_entry(redo, txn * 4 + static_cast<std::uint64_t>(r), image, columns);
  }
  return redo;
}

struct Ack {
  std::uint64_t txn;
  std::uint64_t end_lsn;  // what append returned: the LSN just past the record
};

}  // namespace

int main() {
  char dir_template[] = "/tmp/islands_log_test_XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  CHECK(dir != nullptr);
  if (!dir) return test_summary("log_group_commit");
  const std::string path = log_file_path(dir, 0);

  {  // CRC-32C: the check value of "123456789", and the instruction against the tables.
    CHECK(crc32c("123456789", 9) == 0xE3069283u && crc32c_portable("123456789", 9) == 0xE3069283u);
    std::vector<unsigned char> bytes(4096);
    std::uint32_t x = 12345;
    for (auto& b : bytes) b = static_cast<unsigned char>((x = x * 1103515245u + 12345u) >> 16);
    std::size_t differ = 0;
    for (std::size_t offset = 0; offset < 9; ++offset) {
      for (std::size_t n = 0; n + offset <= bytes.size(); n += 1 + n / 3) {
        if (crc32c(bytes.data() + offset, n, 77) != crc32c_portable(bytes.data() + offset, n, 77)) ++differ;
      }
    }
    // Every length up to 4 rounds of the three interleaved streams, so every way a length
    // splits into rounds, 8-byte words and trailing bytes is checked.
    for (std::size_t n = 0; n <= 800; ++n) {
      if (crc32c(bytes.data() + 3, n, 5) != crc32c_portable(bytes.data() + 3, n, 5)) ++differ;
    }
    CHECK(differ == 0);
    std::printf("log_group_commit: CRC-32C in %s\n", crc32c_in_hardware() ? "hardware" : "software");
  }

  {  // A requested flush is done at once, not at the end of a 100 s group delay.
    LogConfig config;
    config.mode = LogMode::group_commit;
    config.directory = dir;
    config.group_delay_us = 1e8;
    LogWriter log(config, path, kBaseLsn, 0, kEpoch);
    const std::vector<unsigned char> redo = redo_of(1);
    const std::uint64_t end = log.append(LogRecordType::commit, 1, 0, 5, redo.data(), redo.size());
    log.request_flush();
    for (int i = 0; i < 5000 && log.durable_lsn() < end; ++i) ::usleep(1000);
    CHECK(log.durable_lsn() >= end);
    log.close();
  }

  // The third pass: appenders flush their own groups (flush_now, as a worker whose 2PC vote or
  // decision waits does) beside a flusher that gathers for 100 s (it writes for a waiting
  // appender or a half-full buffer); a flush_now that wrote leaves the appender's records
  // durable at once, and writes never overlap (the file is read back below).
  // The fourth: the appenders write the groups themselves (flush_if_due, as workers polling
  // their pipelines do) with the log on tmpfs, where worker writes are on; skipped without one.
  struct Pass {
    double group_delay_us;
    bool on_demand;
    bool workers_write;
  };
  char shm_template[] = "/dev/shm/islands_log_test_XXXXXX";
  struct statfs shm_fs;
  const bool have_tmpfs = ::statfs("/dev/shm", &shm_fs) == 0 && static_cast<unsigned long>(shm_fs.f_type) == TMPFS_MAGIC;
  const char* shm_dir = have_tmpfs ? ::mkdtemp(shm_template) : nullptr;
  if (!shm_dir) std::printf("log_group_commit: no tmpfs at /dev/shm, the worker-writes pass is skipped\n");
  for (const Pass pass : {Pass{0.0, false, false}, Pass{200.0, false, false}, Pass{1e8, true, false},
                          Pass{200.0, false, true}}) {
    if (pass.workers_write && !shm_dir) continue;
    const std::string pass_path = log_file_path(pass.workers_write ? shm_dir : dir, 0);
    const double group_delay_us = pass.group_delay_us;
    std::atomic<std::uint64_t> on_demand_not_durable{0};
    std::atomic<std::uint64_t> worker_flush_not_durable{0};
    LogConfig config;
    config.mode = LogMode::group_commit;
    config.directory = pass.workers_write ? shm_dir : dir;
    config.worker_writes = pass.workers_write;
    config.group_delay_us = group_delay_us;
    config.buffer_bytes = 512;  // a few records per buffer: buffer swaps and buffer waits happen
    std::vector<std::vector<Ack>> acks(kAppenders);
    std::atomic<std::uint64_t> not_durable{0};
    std::atomic<std::uint64_t> appended_behind{0};
    LogWriterStats stats;
    {
      LogWriter log(config, pass_path, kBaseLsn, 0, kEpoch);
      CHECK(log.workers_write() == pass.workers_write);
      std::vector<std::thread> threads;
      for (int t = 0; t < kAppenders; ++t) {
        threads.emplace_back([&, t] {
          std::uint32_t i = 0;
          while (i < kCommitsPerAppender) {
            // Sometimes several commits before one wait, as a worker with max_pending > 1 does.
            const std::uint32_t batch = 1 + (i + static_cast<std::uint32_t>(t)) % 3;
            std::uint64_t last = 0;
            const std::size_t first = acks[t].size();
            for (std::uint32_t k = 0; k < batch && i < kCommitsPerAppender; ++k, ++i) {
              const std::uint64_t txn = (static_cast<std::uint64_t>(t + 1) << 32) | i;
              const std::vector<unsigned char> redo = redo_of(txn);
              // The redo split in two pieces, as the engine passes a decision's participants.
              const std::size_t half = redo.size() / 2;
              last = log.append(LogRecordType::commit, txn, 0, 5, redo.data(), half, redo.data() + half,
                                redo.size() - half);
              acks[t].push_back({txn, last});
              if (log.appended_lsn() < last) ++appended_behind;
            }
            // On demand: a flush_now that wrote leaves `last` durable; one that found a write
            // under way asked for the next and is tried again while `last` is not durable.
            for (int k = 0; pass.on_demand && k < 100 && log.durable_lsn() < last; ++k) {
              if (log.flush_now() && log.durable_lsn() < last) ++on_demand_not_durable;
            }
            // Worker writes: poll until the group is due and some appender wrote it (a
            // flush_if_due that wrote leaves every record appended before it durable).
            for (int k = 0; pass.workers_write && k < 1000000 && log.durable_lsn() < last; ++k) {
              if (log.flush_if_due() && log.durable_lsn() < last) ++worker_flush_not_durable;
            }
            log.wait_durable(last);
            const std::uint64_t durable_now = log.durable_lsn();  // first: appended only grows
            if (log.appended_lsn() < durable_now) ++appended_behind;
            // Acknowledged now: each of these records must be durable already.
            const std::uint64_t durable = log.durable_lsn();
            for (std::size_t a = first; a < acks[t].size(); ++a) {
              if (acks[t][a].end_lsn > durable) ++not_durable;
            }
          }
        });
      }
      for (auto& thread : threads) thread.join();
      for (const auto& mine : acks) {
        for (const Ack& ack : mine) {
          if (ack.end_lsn > log.durable_lsn()) ++not_durable;
        }
      }
      stats = log.stats();
      log.close();
      CHECK(log.appended_lsn() == log.durable_lsn());  // closed: everything appended is durable
    }
    CHECK(not_durable.load() == 0);
    CHECK(appended_behind.load() == 0);
    CHECK(stats.records == std::uint64_t{kAppenders} * kCommitsPerAppender);
    CHECK(stats.flushes > 0);
    CHECK(on_demand_not_durable.load() == 0);
    CHECK(pass.on_demand ? stats.flushes_on_demand > 0 : stats.flushes_on_demand == 0);
    CHECK(worker_flush_not_durable.load() == 0);
    CHECK(pass.workers_write ? stats.flushes_by_workers > 0 : stats.flushes_by_workers == 0);

    // Read the file back: every acknowledged commit exactly once, intact, at its LSN.
    const LogFile file(pass_path);
    CHECK(file.base_lsn() == kBaseLsn);
    CHECK(file.tail_note().empty());
    CHECK(file.valid_bytes() == file.file_bytes());
    std::map<std::uint64_t, const LogRecord*> by_txn;
    std::size_t epochs = 0, duplicates = 0, bad_lsn = 0;
    for (const LogRecord& r : file.records()) {
      if (r.header.lsn != kBaseLsn + r.offset) ++bad_lsn;
      if (r.type() == LogRecordType::epoch) {
        ++epochs;
        CHECK(r.header.aux == kEpoch);
        continue;
      }
      if (r.type() != LogRecordType::commit) continue;
      if (!by_txn.emplace(r.header.txn, &r).second) ++duplicates;
    }
    CHECK(epochs == 1);
    CHECK(duplicates == 0);
    CHECK(bad_lsn == 0);
    CHECK(by_txn.size() == std::size_t{kAppenders} * kCommitsPerAppender);
    std::size_t missing = 0, wrong = 0, out_of_order = 0;
    for (const auto& mine : acks) {
      std::uint64_t previous = 0;
      for (const Ack& ack : mine) {
        const auto it = by_txn.find(ack.txn);
        if (it == by_txn.end()) {
          ++missing;
          continue;
        }
        const LogRecord& r = *it->second;
        // Where append said it ends, and after this appender's previous record.
        if (r.header.lsn + r.header.length != ack.end_lsn) ++wrong;
        if (r.header.lsn < previous) ++out_of_order;
        previous = r.header.lsn;
        const std::vector<unsigned char> redo = redo_of(ack.txn);
        std::vector<unsigned char> read_back;
        for_each_redo_entry(r.redo, r.redo_bytes, [&](std::uint64_t key, const std::int32_t* image, std::size_t columns) {
          append_redo_entry(read_back, key, image, columns);
        });
        if (read_back != redo || r.header.columns != 5) ++wrong;
      }
    }
    CHECK(missing == 0);
    CHECK(wrong == 0);
    CHECK(out_of_order == 0);

    std::printf("log_group_commit: group delay %.0f us%s%s: %llu records in %llu flushes (%llu on demand, %llu by "
                "workers), %llu buffer waits\n",
                group_delay_us, pass.on_demand ? ", flushed on demand" : "", pass.workers_write ? ", workers write" : "",
                static_cast<unsigned long long>(stats.records), static_cast<unsigned long long>(stats.flushes),
                static_cast<unsigned long long>(stats.flushes_on_demand),
                static_cast<unsigned long long>(stats.flushes_by_workers),
                static_cast<unsigned long long>(stats.buffer_waits));
    ::unlink(pass_path.c_str());
  }
  // Worker writes with waiters: one thread writes every group as soon as it opens
  // (flush_if_due, group delay 0) while others append and block in wait_durable at once. A
  // waiter whose record a worker wrote stays counted in the flusher's waiters until it gets the
  // mutex back; a flusher that took that for work to do spun with the mutex held and the waiter
  // never got it (a hang seen under ThreadSanitizer in CI). The rounds run in a thread watched
  // with a deadline, so that a hang fails this test rather than the whole CI run.
  if (shm_dir) {
    const std::string waiters_path = log_file_path(shm_dir, 0);
    std::atomic<bool> finished{false};
    std::atomic<std::uint64_t> waits{0};
    LogWriterStats stats;
    std::thread rounds([&] {
      LogConfig config;
      config.mode = LogMode::group_commit;
      config.directory = shm_dir;
      config.worker_writes = true;
      config.group_delay_us = 0;
      LogWriter log(config, waiters_path, kBaseLsn, 0, kEpoch);
      std::atomic<bool> appending{true};
      std::thread writer([&] {
        while (appending.load(std::memory_order_relaxed)) log.flush_if_due();
      });
      std::vector<std::thread> waiters;
      for (int t = 0; t < 2; ++t) {
        waiters.emplace_back([&, t] {
          const std::vector<unsigned char> redo = redo_of(static_cast<std::uint64_t>(t));
          for (std::uint32_t i = 0; i < 20000 / islands_test::kRaceScale; ++i) {
            const std::uint64_t end = log.append(LogRecordType::commit, i, 0, 5, redo.data(), redo.size());
            log.wait_durable(end);
            ++waits;
          }
        });
      }
      for (auto& waiter : waiters) waiter.join();
      appending = false;
      writer.join();
      stats = log.stats();
      log.close();
      finished = true;
    });
    for (int ms = 0; ms < 120000 && !finished.load(); ms += 10) ::usleep(10000);
    if (!finished.load()) {
      std::fprintf(stderr, "log_group_commit: worker writes with waiters hung after %llu waits\n",
                   static_cast<unsigned long long>(waits.load()));
      ::unlink(waiters_path.c_str());  // the hung threads keep their descriptor; nothing stays behind
      ::rmdir(shm_dir);
      ::rmdir(dir);
      std::_Exit(EXIT_FAILURE);
    }
    rounds.join();
    CHECK(waits.load() == 2 * (20000 / islands_test::kRaceScale));
    CHECK(stats.flushes_by_workers > 0);
    std::printf("log_group_commit: worker writes with waiters: %llu waits, %llu flushes (%llu by workers)\n",
                static_cast<unsigned long long>(waits.load()), static_cast<unsigned long long>(stats.flushes),
                static_cast<unsigned long long>(stats.flushes_by_workers));
    ::unlink(waiters_path.c_str());
  }
  if (shm_dir) ::rmdir(shm_dir);
  ::rmdir(dir);
  return test_summary("log_group_commit");
}
