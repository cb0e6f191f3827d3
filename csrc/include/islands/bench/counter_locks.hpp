#pragma once
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "islands/common/spin_latch.hpp"

namespace islands {

//! How each counter of the counter benchmark is protected (paper 000, Fig 5 and 7).
//! mutex: pthread mutex. ttas: test-and-test-and-set spinlock. mcs: MCS queue lock.
//! atomic: no lock, one atomic fetch-and-add per increment (for comparison).
enum class LockKind { mutex, ttas, mcs, atomic };

const char* lock_kind_name(LockKind kind);            //!< e.g. "mcs"
LockKind parse_lock_kind(const std::string& name);    //!< throws std::invalid_argument naming the choices
std::vector<LockKind> all_lock_kinds();               //!< every kind, in figure order

//! A per-thread queue node (only the MCS lock uses it), on its own cache line.
struct alignas(64) LockNode {
  std::atomic<LockNode*> next{nullptr};  //!< successor in the MCS queue
  std::atomic<bool> waiting{false};      //!< true while the owner must wait
};

//! pthread mutex (std::mutex) behind the common lock(node)/unlock(node) interface.
class MutexLock {
 public:
  //! Acquires.
  void lock(LockNode&) { mutex_.lock(); }
  //! Releases.
  void unlock(LockNode&) { mutex_.unlock(); }

 private:
  std::mutex mutex_;
};

//! Test-and-test-and-set spinlock: spins reading until free, then tries the exchange.
class TtasLock {
 public:
  //! Acquires.
  void lock(LockNode&) {
    for (;;) {
      if (!held_.exchange(true, std::memory_order_acquire)) return;
      Backoff backoff;
      while (held_.load(std::memory_order_relaxed)) backoff.pause();
    }
  }
  //! Releases.
  void unlock(LockNode&) { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

//! MCS queue lock (Mellor-Crummey and Scott): each waiter spins on its own node, FIFO order.
class McsLock {
 public:
  //! Acquires, queueing `me` (the calling thread's node).
  void lock(LockNode& me) {
    me.next.store(nullptr, std::memory_order_relaxed);
    me.waiting.store(true, std::memory_order_relaxed);
    LockNode* prev = tail_.exchange(&me, std::memory_order_acq_rel);
    if (prev == nullptr) return;
    prev->next.store(&me, std::memory_order_release);
    Backoff backoff;
    while (me.waiting.load(std::memory_order_acquire)) backoff.pause();
  }
  //! Releases, handing the lock to the next queued node if any.
  void unlock(LockNode& me) {
    LockNode* next = me.next.load(std::memory_order_acquire);
    if (next == nullptr) {
      LockNode* expected = &me;
      if (tail_.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel,
                                        std::memory_order_relaxed)) {
        return;
      }
      // A successor swapped itself in but has not linked yet: wait for the link.
      Backoff backoff;
      while ((next = me.next.load(std::memory_order_acquire)) == nullptr) backoff.pause();
    }
    next->waiting.store(false, std::memory_order_release);
  }

 private:
  std::atomic<LockNode*> tail_{nullptr};
};

//! No lock: the counter is incremented with one atomic fetch-and-add.
class NoLock {
 public:
  void lock(LockNode&) {}    //!< nothing
  void unlock(LockNode&) {}  //!< nothing
};

}  // namespace islands
