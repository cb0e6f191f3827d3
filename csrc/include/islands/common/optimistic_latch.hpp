#pragma once
#include <atomic>
#include <cstdint>

#include "islands/common/spin_latch.hpp"

namespace islands {

//! A version latch for read-mostly structures. Lookups read optimistically: they note the
//! version, read without writing any shared cache line, and retry if a writer came between
//! (like a seqlock; LeanStore's optimistic lock coupling at one level). Writers hold it
//! exclusively; long readers that cannot retry (range scans with callbacks) hold it shared.
//! Word: [0] writer, [1..15] shared holders, [16..63] version, bumped by every writer.
//! Memory reachable through a protected structure must stay readable while optimistic readers
//! may still look at it (retired, not freed, until the structure is destroyed).
class OptimisticLatch {
 public:
  //! Waits until no writer holds the latch and returns the version to validate against.
  std::uint64_t read_begin() const {
    Backoff backoff;
    for (;;) {
      const std::uint64_t word = word_.load(std::memory_order_acquire);
      if (!(word & kWriter)) return word & kVersionMask;
      backoff.pause();
    }
  }
  //! True when no writer entered since read_begin returned `version`.
  bool read_valid(std::uint64_t version) const {
    std::atomic_thread_fence(std::memory_order_acquire);
    return (word_.load(std::memory_order_relaxed) & (kVersionMask | kWriter)) == version;
  }
  //! Acquires shared (pessimistic readers).
  void lock_shared() {
    Backoff backoff;
    for (;;) {
      std::uint64_t word = word_.load(std::memory_order_relaxed);
      if (!(word & kWriter) && (word & kReaders) != kReaders &&
          word_.compare_exchange_weak(word, word + kOneReader, std::memory_order_acquire)) {
        return;
      }
      backoff.pause();
    }
  }
  //! Releases a shared hold.
  void unlock_shared() { word_.fetch_sub(kOneReader, std::memory_order_release); }
  //! Acquires exclusively: waits for the writer bit and for shared holders to leave.
  void lock() {
    Backoff backoff;
    for (;;) {
      std::uint64_t word = word_.load(std::memory_order_relaxed);
      if (!(word & (kWriter | kReaders)) &&
          word_.compare_exchange_weak(word, word | kWriter, std::memory_order_acquire)) {
        return;
      }
      backoff.pause();
    }
  }
  //! Releases the exclusive hold and publishes a new version.
  void unlock() {
    const std::uint64_t word = word_.load(std::memory_order_relaxed);
    word_.store((word & ~kWriter) + kOneVersion, std::memory_order_release);
  }

 private:
  static constexpr std::uint64_t kWriter = 1;
  static constexpr std::uint64_t kOneReader = 2;
  static constexpr std::uint64_t kReaders = 0xfffe;
  static constexpr std::uint64_t kOneVersion = 1ULL << 16;
  static constexpr std::uint64_t kVersionMask = ~0xffffULL;
  std::atomic<std::uint64_t> word_{0};  // 8 bytes: a user aligns it (a line of its own, or with what it guards)
};

}  // namespace islands
