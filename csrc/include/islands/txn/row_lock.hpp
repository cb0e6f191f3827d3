#pragma once
#include <atomic>
#include <cstdint>

#include "islands/settings/cc_kind.hpp"
#include "islands/common/abort_reason.hpp"
#include "islands/common/spin_latch.hpp"

namespace islands {

//! Shared or exclusive.
enum class LockMode : std::uint8_t { shared, exclusive };

//! Row lock in one 64-bit word: [63] exclusive bit, [62..48] shared holder count,
//! [47..0] the smallest (oldest) timestamp among holders since the lock was last free.
//! The stored timestamp can be older than every current holder once the oldest left; wait-die
//! then makes a requester die where it could have waited: conservative, never a deadlock.
class RowLock {
 public:
  static constexpr std::uint64_t kExclusive = 1ULL << 63;
  static constexpr std::uint64_t kOneReader = 1ULL << 48;
  static constexpr std::uint64_t kReaderMask = 0x7fffULL << 48;
  static constexpr std::uint64_t kTsMask = (1ULL << 48) - 1;

  //! Acquires `mode` on `word` for a transaction with timestamp `ts` (< 2^48) under `policy`.
  static bool acquire(std::atomic<std::uint64_t>& word, LockMode mode, std::uint64_t ts,
                      LockPolicy policy, AbortReason& reason) {
    Backoff backoff;
    for (;;) {
      std::uint64_t w = word.load(std::memory_order_relaxed);
      std::uint64_t desired;
      if (w == 0) {
        desired = (mode == LockMode::exclusive ? kExclusive : kOneReader) | ts;
      } else if (mode == LockMode::shared && !(w & kExclusive) &&
                 (w & kReaderMask) != kReaderMask) {
        const std::uint64_t held_ts = w & kTsMask;
        desired = (w & ~kTsMask) + kOneReader + (ts < held_ts ? ts : held_ts);
      } else {
        if (policy == LockPolicy::no_wait) {
          reason = AbortReason::lock_conflict;
          return false;
        }
        if (ts >= (w & kTsMask)) {  // younger than (or tied with) a holder: die
          reason = AbortReason::wait_die;
          return false;
        }
        backoff.pause();
        continue;
      }
      if (word.compare_exchange_weak(w, desired, std::memory_order_acquire,
                                     std::memory_order_relaxed)) {
        return true;
      }
    }
  }

  //! Releases a hold of `mode` taken by acquire.
  static void release(std::atomic<std::uint64_t>& word, LockMode mode) {
    if (mode == LockMode::exclusive) {
      word.store(0, std::memory_order_release);
      return;
    }
    std::uint64_t w = word.load(std::memory_order_relaxed);
    for (;;) {
      const std::uint64_t desired = ((w & kReaderMask) == kOneReader) ? 0 : w - kOneReader;
      if (word.compare_exchange_weak(w, desired, std::memory_order_release,
                                     std::memory_order_relaxed)) {
        return;
      }
    }
  }
};

}  // namespace islands
