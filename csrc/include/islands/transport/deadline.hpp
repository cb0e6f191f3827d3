#pragma once
#include <chrono>
#include <cstdint>
#include <thread>

namespace islands {

//! A point in time to wait until, with a sleep that starts short (a peer usually appears
//! within microseconds) and grows to 10 ms so a long wait costs little CPU.
class Deadline {
 public:
  //! A deadline timeout_ms from now.
  explicit Deadline(std::uint32_t timeout_ms)
      : end_(std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms)) {}
  //! True once the deadline has passed.
  bool expired() const { return std::chrono::steady_clock::now() >= end_; }
  //! Sleeps a little longer each call, up to 10 ms.
  void sleep() {
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    if (sleep_us_ < 10000) sleep_us_ *= 2;
  }

 private:
  std::chrono::steady_clock::time_point end_;
  std::uint32_t sleep_us_ = 50;
};

}  // namespace islands
