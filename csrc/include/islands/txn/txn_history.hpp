#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace islands {

//! History recording (engine.record_history, a test mode): the version each row holds is the
//! id of the transaction that last wrote it (0: as loaded). Kept beside the rows, in a map
//! keyed by the row's address, rather than in an 8-byte word per row: the mode costs no memory
//! and no row-layout change when it is off, and a broken mode that reads without locks still
//! reads a well-defined version (each stripe has its mutex).
class VersionMap {
 public:
  //! The version `row` holds now.
  std::uint64_t get(const void* row) {
    Stripe& s = stripe(row);
    std::lock_guard<std::mutex> guard(s.mutex);
    const auto it = s.versions.find(row);
    return it == s.versions.end() ? 0 : it->second;
  }
  //! Counts a commit; returns its number in this instance (1, 2, ...).
  std::uint64_t tick() { return commits_.fetch_add(1, std::memory_order_acq_rel) + 1; }
  //! Commits counted so far: a read that sees fewer than its version's writer's number read
  //! it before that writer committed (a dirty read).
  std::uint64_t commits() const { return commits_.load(std::memory_order_acquire); }
  //! Sets the version of `row` and returns the one it replaced.
  std::uint64_t exchange(const void* row, std::uint64_t version) {
    Stripe& s = stripe(row);
    std::lock_guard<std::mutex> guard(s.mutex);
    std::uint64_t& slot = s.versions[row];
    const std::uint64_t before = slot;
    slot = version;
    return before;
  }

 private:
  struct alignas(64) Stripe {
    std::mutex mutex;
    std::unordered_map<const void*, std::uint64_t> versions;
  };
  static constexpr std::size_t kStripes = 64;
  Stripe& stripe(const void* row) {
    const auto a = reinterpret_cast<std::uintptr_t>(row);
    return stripes_[((a >> 4) ^ (a >> 12)) % kStripes];
  }
  Stripe stripes_[kStripes];
  std::atomic<std::uint64_t> commits_{0};
};

//! A worker's history: per committed part [txn id, commit number, reads, writes] in `parts`,
//! its reads as [row, version read, commits seen] in `reads` and its writes as [row, version
//! overwritten] in `writes`, in commit order (three fixed-width streams, so that a checker
//! reads them as arrays).
struct HistorySink {
  std::vector<std::uint64_t> parts, reads, writes;
};

//! One transaction attempt's reads and writes (row, version), for one TxnContext, appended to
//! its worker's HistorySink on commit
//! (rows are addresses: unique within an instance; the checker, islands/results/history_check.py,
//! tells instances apart; commit numbers count this instance's commits, and a read saw the
//! count after it read the version, so under any lock-based scheme it is at least the
//! writer's number: one below it is a dirty read). A write installs the transaction's id as the row's version when the
//! row is locked (eager: a reader that skips locks sees the uncommitted version) and abort puts
//! the old one back; a scheme without locks installs at commit (lazy: nothing to undo when it
//! gives up without calling abort).
class TxnHistory {
 public:
  //! Records into `versions` (the instance's) and, on commit, onto `sink` (the worker's).
  TxnHistory(VersionMap& versions, HistorySink& sink) : versions_(versions), sink_(sink) {}

  //! A new attempt of transaction `id` (unique in the deployment; a distributed transaction's
  //! parts share it); whatever an abandoned attempt left is forgotten.
  [[gnu::noinline]] void begin(std::uint64_t id) {
    id_ = id;
    reads_.clear();
    writes_.clear();
  }
  //! The id of the attempt being recorded.
  std::uint64_t id() const { return id_; }
  //! The row was read under whatever the scheme holds now.
  void read(const void* row) {
    const std::uint64_t version = versions_.get(row);
    reads_.push_back({row, version, versions_.commits(), false});
  }
  //! A read whose version and commits seen the scheme says (snapshot isolation: the version
  //! of the snapshot, which need not be the row's newest, and the snapshot's read timestamp).
  void read(const void* row, std::uint64_t version, std::uint64_t seen) { reads_.push_back({row, version, seen, false}); }
  //! The version `row` holds now (a multi-version scheme keeps it with an old version).
  std::uint64_t current(const void* row) { return versions_.get(row); }
  //! A lazy write whose overwritten version the scheme says (snapshot isolation: the version its
  //! image was copied from).
  void write(const void* row, std::uint64_t version) {
    for (const Access& w : writes_) {
      if (w.row == row) return;
    }
    writes_.push_back({row, version, 0, false});
  }
  //! The row is (about to be) written: its version is taken over now (`eager`) or at commit.
  void write(const void* row, bool eager) {
    for (const Access& w : writes_) {
      if (w.row == row) return;  // written before in this attempt
    }
    const std::uint64_t before = eager ? versions_.exchange(row, id_) : versions_.get(row);
    writes_.push_back({row, before, 0, eager});
  }
  //! Appends the attempt to the worker's history with its commit number; installs the lazy
  //! writes. Call before the transaction's locks are released.
  [[gnu::noinline]] void commit() { commit(versions_.tick()); }
  //! The same with commit number `number` (snapshot isolation: the commit timestamp, so that
  //! numbers and the reads' snapshots are on one clock).
  [[gnu::noinline]] void commit(std::uint64_t number) {
    install(number);
    publish();
  }
  //! commit's first half, with the rows still held: installs the lazy writes at `number`.
  [[gnu::noinline]] void install(std::uint64_t number) {
    for (const Access& w : writes_) {
      if (!w.installed) versions_.exchange(w.row, id_);
    }
    number_ = number;
  }
  //! commit's second half, once the rows are released (snapshot isolation: the append, which
  //! may grow the sink, is not done while readers wait on the rows): appends the attempt.
  [[gnu::noinline]] void publish() {
    const std::uint64_t number = number_;
    sink_.parts.insert(sink_.parts.end(), {id_, number, reads_.size(), writes_.size()});
    for (const Access& r : reads_) {
      sink_.reads.insert(sink_.reads.end(), {reinterpret_cast<std::uintptr_t>(r.row), r.version, r.seen});
    }
    for (const Access& w : writes_) {
      sink_.writes.insert(sink_.writes.end(), {reinterpret_cast<std::uintptr_t>(w.row), w.version});
    }
    reads_.clear();
    writes_.clear();
  }
  //! Puts back the versions this attempt installed, newest first, and forgets the attempt.
  [[gnu::noinline]] void abort() {
    for (std::size_t i = writes_.size(); i-- > 0;) {
      if (writes_[i].installed) versions_.exchange(writes_[i].row, writes_[i].version);
    }
    reads_.clear();
    writes_.clear();
  }

 private:
  struct Access {
    const void* row;
    std::uint64_t version;  // read, or overwritten
    std::uint64_t seen;     // a read: commits counted when it read
    bool installed;         // a write whose id is in the map already
  };
  VersionMap& versions_;
  HistorySink& sink_;
  std::uint64_t id_ = 0, number_ = 0;
  std::vector<Access> reads_, writes_;
};

}  // namespace islands
