#include "islands/log/log_recovery.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "islands/log/log_record.hpp"
#include "islands/log/redo_entry.hpp"
#include "islands/log/snapshot.hpp"

namespace islands {
namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

RecoveryStats recover_from_log(const std::string& directory, std::uint32_t instance, std::uint16_t columns,
                               const RedoTarget& target) {
  const auto t0 = std::chrono::steady_clock::now();
  RecoveryStats stats;
  const std::string path = log_file_path(directory, instance);
  const std::string snapshot = snapshot_path(directory, instance);
  if (exists(snapshot)) {
    bool cleared = false;  // once the snapshot verified: a refused snapshot leaves the data as loaded
    const SnapshotInfo info = read_snapshot(snapshot, columns, [&](std::uint64_t key, const std::int32_t* image,
                                                                   std::size_t n) {
      if (!cleared) {
        target.clear();
        cleared = true;
      }
      if (!target.apply(key, image, n)) {
        throw std::runtime_error("checkpoint: " + snapshot + " holds a row (key " + std::to_string(key) + ", " +
                                 std::to_string(n) + " columns) that this instance's data cannot hold");
      }
    });
    stats.performed = true;
    stats.snapshot_rows = info.rows;
    stats.snapshot_lsn = info.end_lsn;
    stats.max_epoch = info.epoch;
    stats.base_lsn = stats.end_lsn = info.end_lsn;  // where a new log starts if there is none
  }
  if (!exists(path)) return stats;
  const LogFile log(path);
  stats.performed = true;
  if (log.end_lsn() <= stats.snapshot_lsn && stats.snapshot_rows > 0) {
    // A crash after the snapshot but before the new log: the snapshot covers all of this one.
    stats.records = log.records().size();
    return stats;
  }
  stats.records = log.records().size();
  stats.base_lsn = log.base_lsn();
  stats.valid_bytes = log.valid_bytes();
  stats.end_lsn = log.end_lsn();
  stats.tail_note = log.tail_note();

  // Pass 1: the outcome of every prepared part.
  std::unordered_map<std::uint64_t, bool> outcome;  // txn -> committed
  std::unordered_map<std::uint64_t, std::uint32_t> prepared;  // txn -> coordinator instance
  for (const LogRecord& r : log.records()) {
    if (r.header.columns != 0 && r.header.columns != columns) {
      throw std::runtime_error("log: " + path + " was written with " + std::to_string(r.header.columns) +
                               " columns per row but this run has " + std::to_string(columns) +
                               " (LSN " + std::to_string(r.header.lsn) + ")");
    }
    switch (r.type()) {
      case LogRecordType::prepare:
        prepared[r.header.txn] = r.header.aux;
        break;
      case LogRecordType::commit_prepared:
        outcome[r.header.txn] = true;
        break;
      case LogRecordType::abort_prepared:
        outcome[r.header.txn] = false;
        break;
      case LogRecordType::epoch:
        stats.max_epoch = std::max(stats.max_epoch, r.header.aux);
        break;
      default:
        break;
    }
  }
  // In doubt: ask the coordinator's log (read once per coordinator).
  std::map<std::uint32_t, std::unique_ptr<std::unordered_set<std::uint64_t>>> decided;
  for (const auto& [txn, coordinator] : prepared) {
    if (outcome.count(txn)) continue;
    ++stats.in_doubt;
    auto& commits = decided[coordinator];
    if (!commits) {
      commits = std::make_unique<std::unordered_set<std::uint64_t>>();
      const std::string other = log_file_path(directory, coordinator);
      if (coordinator != instance && exists(other)) {
        const LogFile coordinator_log(other);
        for (const LogRecord& r : coordinator_log.records()) {
          if (r.type() == LogRecordType::decision_commit) commits->insert(r.header.txn);
        }
      }
    }
    outcome[txn] = commits->count(txn) > 0;
  }

  // Pass 2: redo in log order (strict 2PL: log order is commit order for every row).
  auto apply = [&](const LogRecord& r) {
    for_each_redo_entry(r.redo, r.redo_bytes, [&](std::uint64_t key, const std::int32_t* image, std::size_t n) {
      if (image == nullptr) {
        if (!target.erase(key)) {
          throw std::runtime_error("log: " + path + " deletes a row (key " + std::to_string(key) + "; LSN " +
                                   std::to_string(r.header.lsn) + ") that this instance's data does not hold");
        }
      } else if (!target.apply(key, image, n)) {
        throw std::runtime_error("log: " + path + " holds a row (key " + std::to_string(key) + ", " +
                                 std::to_string(n) + " columns; LSN " + std::to_string(r.header.lsn) +
                                 ") that this instance's data cannot hold");
      }
      ++stats.rows_redone;
    });
    ++stats.txns_redone;
  };
  for (const LogRecord& r : log.records()) {
    if (r.header.lsn < stats.snapshot_lsn) continue;  // in the snapshot already
    switch (r.type()) {
      case LogRecordType::commit:
      case LogRecordType::decision_commit:
        apply(r);
        break;
      case LogRecordType::prepare:
        if (outcome[r.header.txn]) {
          ++stats.prepared_committed;
          apply(r);
        } else {
          ++stats.prepared_aborted;
          ++stats.discarded;
        }
        break;
      default:
        break;
    }
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return stats;
}

}  // namespace islands
