#pragma once
#include <atomic>
#include <cstdint>
#include <thread>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace islands {

//! Tells the core we are spinning (PAUSE on x86).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

//! Spins politely: PAUSE first, then yields the CPU once the wait grows long (oversubscription).
class Backoff {
 public:
  void pause() {
    if (++spins_ < 1024) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }

 private:
  unsigned spins_ = 0;
};

//! Exclusive spin latch for short critical sections on a hot path: one byte, taken with one
//! atomic exchange when free, spinning politely (Backoff) while held. BasicLockable, so
//! std::unique_lock and std::condition_variable_any take it. A held latch never blocks in the
//! kernel: where a futex mutex makes a second core sleep and be woken (two system calls) for a
//! section of a few stores, this one waits out the stores. Never hold it across a blocking call.
class SpinMutex {
 public:
  //! Acquires the latch.
  void lock() {
    if (!held_.exchange(true, std::memory_order_acquire)) return;
    Backoff backoff;
    do {
      backoff.pause();
    } while (held_.load(std::memory_order_relaxed) || held_.exchange(true, std::memory_order_acquire));
  }
  //! Acquires the latch when it is free; false when it is held.
  bool try_lock() {
    return !held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire);
  }
  //! Releases the latch.
  void unlock() { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

//! Reader-writer spin latch for short index critical sections: a writer bit and a reader count
//! in one word. Writers wait for readers to drain; new readers wait while a writer holds it.
class alignas(64) RwSpinLatch {
 public:
  //! Acquires the latch shared.
  void lock_shared() {
    Backoff backoff;
    for (;;) {
      std::uint32_t word = word_.load(std::memory_order_relaxed);
      if (!(word & kWriter) &&
          word_.compare_exchange_weak(word, word + 1, std::memory_order_acquire)) {
        return;
      }
      backoff.pause();
    }
  }
  //! Releases a shared hold.
  void unlock_shared() { word_.fetch_sub(1, std::memory_order_release); }
  //! Acquires the latch exclusively.
  void lock() {
    Backoff backoff;
    for (;;) {
      std::uint32_t expected = 0;
      if (word_.compare_exchange_weak(expected, kWriter, std::memory_order_acquire)) return;
      backoff.pause();
    }
  }
  //! Releases an exclusive hold.
  void unlock() { word_.store(0, std::memory_order_release); }

 private:
  static constexpr std::uint32_t kWriter = 1u << 31;
  std::atomic<std::uint32_t> word_{0};
};

}  // namespace islands
