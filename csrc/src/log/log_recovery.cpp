#include "islands/log/log_recovery.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "islands/log/log_record.hpp"
#include "islands/log/private_file.hpp"
#include "islands/log/redo_entry.hpp"
#include "islands/log/snapshot.hpp"

namespace islands {
namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The acknowledgement file's entry of a read-only transaction (exec/commit_pipeline.hpp's
// kReadOnlyAckTag): no commit, so nothing the log must hold.
constexpr std::uint64_t kReadOnlyAckTag = 0xffffULL << 48;

// The epoch in a transaction id ([site:16][epoch:16][sequence:32]).
std::uint32_t epoch_of(std::uint64_t txn) { return static_cast<std::uint32_t>((txn >> 32) & 0xffff); }

// What the acknowledgement files of sites [first, first + n) say the log must hold: the
// commits of epochs after `covered` (the snapshot's; -1: no snapshot), and the files read.
struct Acknowledged {
  std::vector<std::uint64_t> txns;
  std::string files;
};

Acknowledged read_acknowledged(const std::string& directory, std::uint32_t first, std::uint32_t n,
                               std::int64_t covered) {
  Acknowledged out;
  for (std::uint32_t site = first; site < first + n; ++site) {
    const std::string path = ack_file_path(directory, site);
    if (!exists(path)) continue;
    const MappedFile data(path, "log.record_acks", FileAccess::copy);  // peers append and restart it
    out.files += (out.files.empty() ? "" : ", ") + path;
    for (std::size_t at = 0; at + 8 <= data.size(); at += 8) {
      std::uint64_t txn;
      std::memcpy(&txn, data.data() + at, 8);
      if ((txn & kReadOnlyAckTag) == kReadOnlyAckTag || std::int64_t{epoch_of(txn)} <= covered) continue;
      out.txns.push_back(txn);
    }
  }
  return out;
}

// Every commit any site acknowledged (all acks-<site>.bin in the directory; read-only
// entries apart): a distributed one needs its participants' prepare records too.
std::unordered_set<std::uint64_t> read_all_acknowledged(const std::string& directory) {
  std::unordered_set<std::uint64_t> out;
  const std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(directory.c_str()), ::closedir);
  if (!dir) return out;
  while (const dirent* e = ::readdir(dir.get())) {
    const std::string name = e->d_name;
    if (name.rfind("acks-", 0) != 0 || name.size() < 10 || name.compare(name.size() - 4, 4, ".bin") != 0) continue;
    const MappedFile data(directory + "/" + name, "log.record_acks", FileAccess::copy);
    for (std::size_t at = 0; at + 8 <= data.size(); at += 8) {
      std::uint64_t txn;
      std::memcpy(&txn, data.data() + at, 8);
      if ((txn & kReadOnlyAckTag) != kReadOnlyAckTag) out.insert(txn);
    }
  }
  return out;
}

// Refuses a recovery that lost acknowledged commits: every commit of `acked` must be in
// `recovered` (the commits and coordinator decisions of the log); counts them in stats.
void check_acknowledged(const Acknowledged& acked, const std::unordered_set<std::uint64_t>& recovered,
                        const std::string& log, std::uint32_t instance, RecoveryStats& stats) {
  stats.acknowledged = acked.txns.size();
  stats.acknowledged_recovered = 0;
  for (const std::uint64_t txn : acked.txns) stats.acknowledged_recovered += recovered.count(txn);
  if (stats.acknowledged_recovered == stats.acknowledged) return;
  throw std::runtime_error("recovery: instance " + std::to_string(instance) + " lost acknowledged commits: acknowledged " +
                           std::to_string(stats.acknowledged) + (stats.snapshot_epoch ? " after its snapshot" : "") +
                           ", recovered " + std::to_string(stats.acknowledged_recovered) + " from " + log + " (per " +
                           acked.files + " and the decisions of peers naming it); a log cut at a record boundary, or "
                           "an older copy? refusing to recover");
}

}  // namespace

std::string ack_file_path(const std::string& directory, std::uint32_t site) {
  return directory + "/acks-" + std::to_string(site) + ".bin";
}

RecoveryStats recover_from_log(const std::string& directory, std::uint32_t instance, std::uint16_t columns,
                               const RedoTarget& target, std::uint32_t first_site, std::uint32_t sites) {
  const auto t0 = std::chrono::steady_clock::now();
  RecoveryStats stats;
  const std::string path = log_file_path(directory, instance);
  const std::string snapshot = snapshot_path(directory, instance);
  const bool have_snapshot = exists(snapshot);
  if (have_snapshot) {
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
    stats.snapshot_epoch = info.epoch;
    stats.base_lsn = stats.end_lsn = info.end_lsn;  // where a new log starts if there is none
  }
  const std::int64_t covered = have_snapshot ? std::int64_t{stats.snapshot_epoch} : -1;  // epochs the snapshot holds
  Acknowledged acked = read_acknowledged(directory, first_site, sites, covered);
  std::unordered_set<std::uint64_t> recovered;  // commits and decisions in the log (with acknowledgements only)
  if (!exists(path)) {
    check_acknowledged(acked, recovered, path + " (missing)", instance, stats);
    return stats;
  }
  const LogFile log(path);
  stats.performed = true;
  if (!acked.files.empty()) {
    // This instance's parts of distributed commits other instances acknowledged: each
    // coordinator decision naming it must find its prepare record here (the snapshot covers
    // those of its epoch and before; instances restart together, so epochs agree).
    const std::unordered_set<std::uint64_t> everyone = read_all_acknowledged(directory);
    for (std::uint32_t other = 0; exists(log_file_path(directory, other)) || other <= instance; ++other) {
      const std::string other_path = log_file_path(directory, other);
      if (other == instance || !exists(other_path)) continue;
      const LogFile coordinator_log(other_path, FileAccess::copy);  // its instance may be cutting it now
      for (const LogRecord& r : coordinator_log.records()) {
        if (r.type() != LogRecordType::decision_commit || std::int64_t{epoch_of(r.header.txn)} <= covered) continue;
        const auto& p = r.participants;
        if (std::find(p.begin(), p.end(), instance) != p.end() && everyone.count(r.header.txn)) {
          acked.txns.push_back(r.header.txn);
        }
      }
    }
  }
  if (!acked.txns.empty()) {
    for (const LogRecord& r : log.records()) {
      if (r.type() == LogRecordType::commit || r.type() == LogRecordType::decision_commit ||
          r.type() == LogRecordType::prepare || r.type() == LogRecordType::command) {
        recovered.insert(r.header.txn);
      }
    }
  }
  if (log.base_lsn() > 0 && !have_snapshot) {
    // Only a checkpoint starts a log past LSN 0, and it writes the snapshot first.
    throw std::runtime_error("recovery: " + path + " starts at LSN " + std::to_string(log.base_lsn()) +
                             ", after a checkpoint, but its snapshot " + snapshot +
                             " is missing: every commit before it would be lost; refusing to recover");
  }
  if (log.end_lsn() <= stats.snapshot_lsn && stats.snapshot_rows > 0) {
    // A crash after the snapshot but before the new log: the snapshot covers all of this one.
    stats.records = log.records().size();
    check_acknowledged(acked, recovered, path, instance, stats);
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
  // A command is executed again where its record is: strict 2PL orders it after every commit
  // whose rows it read or wrote, as it does an after-image.
  auto replay = [&](const LogRecord& r) {
    const std::string where = "log: " + path + ": the command at LSN " + std::to_string(r.header.lsn);
    if (!target.replay) throw std::runtime_error(where + " cannot be replayed: this workload logs no commands");
    if (!target.replay(r.command.data(), r.command.size(), static_cast<std::int32_t>(r.header.aux))) {
      throw std::runtime_error(where + " did not commit when executed again (or its words are no command of this "
                                       "workload): the log does not fit this data");
    }
    ++stats.commands_replayed;
    ++stats.txns_redone;
  };
  for (const LogRecord& r : log.records()) {
    if (r.header.lsn < stats.snapshot_lsn) continue;  // in the snapshot already
    switch (r.type()) {
      case LogRecordType::commit:
      case LogRecordType::decision_commit:
        apply(r);
        break;
      case LogRecordType::command:
        replay(r);
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
  check_acknowledged(acked, recovered, path, instance, stats);
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return stats;
}

}  // namespace islands
