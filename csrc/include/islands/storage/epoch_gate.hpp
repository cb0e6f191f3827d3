#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <mutex>
#include <vector>

namespace islands {

//! Epoch-based reclamation of released rows (storage/table.hpp): a row a transaction deleted
//! is handed out again only once every transaction that might still hold a pointer to it (one
//! that found it through an index before the delete) has finished.
//!
//! Participants are transaction contexts (txn/txn_context.hpp), each with a slot: a context
//! *enters* when its transaction (or a retry of it) starts, before it reads any index, and
//! *exits* once it has let go of every row (commit or abort done). Entering announces the
//! global epoch read then; a release takes a stamp (the epoch, moved on by one). A row stamped s
//! is safe once a scan that read the epoch past s found no slot announcing s or less: every
//! context that held the row when it was released entered at or before s and had not exited.
//!
//! Cost: entering is a relaxed load of the (read-mostly) epoch, a store to the context's own
//! cache line and a full fence (the announcement must be visible before the index reads:
//! the indexes read optimistically); exiting is one store. A release is one atomic add on the
//! epoch. Scans read every slot; they are amortized (reusable): a cached bound answers while it
//! clears the row asked about, and while the slot that held the last scan's bound down still
//! announces an epoch at or before the row's stamp, nothing is scanned either.
//!
//! Why not the active-transaction list (txn/active_txn_list.hpp): it is kept only with
//! engine.system_structures on (default none), takes a latch per transaction, links only the
//! transactions a worker coordinates, and unlinks one at its decision, before a pipelined
//! commit, a 2PC participant's prepared part or a PLP owner's held action lets go of its rows.
//! Contexts cover all of them (each fragment and action runs in a context of its own).
//!
//! Why it is correct (C++ model; every scheme's index read of the pointer reads a value the
//! delete's erase overwrote): the entering context's fence precedes its index read, which is
//! coherence-ordered before the erase; the releaser's fence follows the erase and precedes its
//! stamp; a scan whose epoch load sees past the stamp then observes the announcement (or a
//! later store of the same slot: an exit or an entry after the context let go).
class EpochGate {
 public:
  //! A slot's value while its context holds nothing.
  static constexpr std::uint64_t kIdle = std::numeric_limits<std::uint64_t>::max();

  //! One participant's announcement (on its own cache line).
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> epoch{kIdle};  //!< the epoch it entered at, or kIdle
    bool in_use = false;                      //!< given out by join (the gate's mutex guards it)
  };

  EpochGate() = default;
  EpochGate(const EpochGate&) = delete;
  EpochGate& operator=(const EpochGate&) = delete;

  //! A slot for a new participant, idle; give it back with leave. Any thread.
  Slot* join() {
    std::lock_guard<std::mutex> guard(mutex_);
    for (Slot& s : slots_) {
      if (!s.in_use) {
        s.in_use = true;
        s.epoch.store(kIdle, std::memory_order_release);
        return &s;
      }
    }
    slots_.emplace_back();
    slots_.back().in_use = true;
    return &slots_.back();
  }
  //! Gives a slot back (its participant holds nothing and will not enter again).
  void leave(Slot* slot) {
    std::lock_guard<std::mutex> guard(mutex_);
    slot->epoch.store(kIdle, std::memory_order_release);
    slot->in_use = false;
  }

  //! The participant starts (or restarts) a transaction: call before it reads any index, and
  //! only while it holds no row (a later epoch would stop protecting rows it held).
  void enter(Slot& slot) {
    slot.epoch.store(epoch_.load(std::memory_order_relaxed), std::memory_order_release);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the announcement before the index reads
  }
  //! The participant holds no row any more.
  static void exit(Slot& slot) { slot.epoch.store(kIdle, std::memory_order_release); }

  //! The stamp of a row released now (its key already erased from every index): the epoch,
  //! moved on so that transactions entering from now on do not hold the row up.
  std::uint64_t stamp() {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the erase before the stamp
    return epoch_.fetch_add(1, std::memory_order_seq_cst);
  }
  //! Whether a row stamped `stamp` is safe to reuse by the last scan (refresh); cheap.
  bool safe(std::uint64_t stamp) const { return stamp < bound_.load(std::memory_order_acquire); }
  //! Whether a row stamped `stamp` is safe to reuse now: by the last scan, else (when the slot
  //! that held the last scan's bound down no longer announces `stamp` or less) by a new scan.
  //! So scans follow the participants' transactions, not the allocations that ask: one load of
  //! one slot while the same transaction still holds the row up.
  bool reusable(std::uint64_t stamp) {
    if (safe(stamp)) return true;
    const Slot* blocker = blocker_.load(std::memory_order_acquire);
    if (blocker != nullptr && blocker->epoch.load(std::memory_order_acquire) <= stamp) return false;
    return stamp < refresh();
  }
  //! Scans every slot and raises the bound safe() compares with; returns it. Any thread.
  std::uint64_t refresh() {
    std::lock_guard<std::mutex> guard(mutex_);
    std::uint64_t bound = epoch_.load(std::memory_order_seq_cst);
    const Slot* blocker = nullptr;
    for (const Slot& s : slots_) {
      const std::uint64_t e = s.epoch.load(std::memory_order_seq_cst);
      if (e < bound) {
        bound = e;
        blocker = &s;
      }
    }
    blocker_.store(blocker, std::memory_order_release);
    if (bound > bound_.load(std::memory_order_relaxed)) bound_.store(bound, std::memory_order_release);
    ++scans_;
    return bound_.load(std::memory_order_relaxed);
  }

  //! The epoch now (the next release's stamp).
  std::uint64_t epoch() const { return epoch_.load(std::memory_order_relaxed); }
  //! Scans so far (refresh calls).
  std::uint64_t scans() {
    std::lock_guard<std::mutex> guard(mutex_);
    return scans_;
  }
  //! Participants joined now.
  std::size_t participants() {
    std::lock_guard<std::mutex> guard(mutex_);
    return static_cast<std::size_t>(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.in_use; }));
  }

 private:
  alignas(64) std::atomic<std::uint64_t> epoch_{1};
  alignas(64) std::atomic<std::uint64_t> bound_{0};  // stamps below it are safe (monotone)
  std::atomic<const Slot*> blocker_{nullptr};         // the slot that set the last scan's bound (null: the epoch did)
  std::mutex mutex_;                                  // slots_ (membership) and scans
  std::deque<Slot> slots_;                            // stable addresses
  std::uint64_t scans_ = 0;
};

}  // namespace islands
