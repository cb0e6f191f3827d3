#pragma once
#include <atomic>
#include <cstdint>

#include "islands/common/check.hpp"

namespace islands {

//! The system-state read/write lock (one part of it: exec/system_structures.hpp keeps one or
//! one per socket). Every transaction holds it shared from before it reads the run's phase to
//! its outcome; whoever must see no transaction running (a phase change that opens or closes
//! the measured window, a checkpoint) takes it exclusively. One word: the holders' count and a
//! barrier bit. Shared holders never wait inside the lock: try_lock_shared fails while the
//! barrier is up and the caller decides how to wait (a PLP worker serves its queue meanwhile,
//! or two workers waiting on each other's actions would never drain).
class alignas(64) SystemStateLock {
 public:
  //! Takes the lock shared unless the barrier is up (then false, and nothing is held).
  bool try_lock_shared() {
    if (word_.fetch_add(1, std::memory_order_acquire) & kBarrier) {
      word_.fetch_sub(1, std::memory_order_release);
      return false;
    }
    return true;
  }
  //! Releases a shared hold.
  void unlock_shared() { word_.fetch_sub(1, std::memory_order_release); }
  //! Raises the barrier: no new shared holder from now on (the first step of taking the lock
  //! exclusively; one exclusive taker at a time).
  void bar() {
    const std::uint32_t was = word_.fetch_or(kBarrier, std::memory_order_acq_rel);
    ISLANDS_CHECK(!(was & kBarrier), "system-state lock: taken exclusively twice");
  }
  //! Whether the barrier is up and every shared holder has left (the lock is held exclusively).
  bool drained() const { return word_.load(std::memory_order_acquire) == kBarrier; }
  //! Lowers the barrier (releases an exclusive hold, or gives up taking one).
  void unbar() { word_.fetch_and(~kBarrier, std::memory_order_release); }
  //! Shared holders now (those backing out of a failed try included).
  std::uint32_t holders() const { return word_.load(std::memory_order_relaxed) & ~kBarrier; }

 private:
  static constexpr std::uint32_t kBarrier = 1u << 31;
  std::atomic<std::uint32_t> word_{0};
};

}  // namespace islands
