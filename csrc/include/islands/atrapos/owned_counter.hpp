#pragma once
// A counter that one thread writes and any thread may read, without a locked instruction.
#include <atomic>
#include <cstdint>

namespace islands::atrapos {

//! A 64-bit counter with a single writer (its owner thread) and any number of readers.
//!
//! The owner adds with a relaxed load and a relaxed store: on x86 and ARM these are plain
//! moves, no lock prefix and no fence, as cheap as a non-atomic increment, yet a reader's
//! relaxed load is not a data race (TSan stays quiet) and never sees a torn value. Only the
//! owner may call add(); two writers would lose updates.
class OwnedCounter {
 public:
  //! Adds `n` (owner thread only).
  void add(std::uint64_t n) noexcept {
    value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  //! The current value (any thread); never below a value read earlier by the same thread.
  std::uint64_t read() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

}  // namespace islands::atrapos
