#pragma once
#include <algorithm>

#include "islands/common/random.hpp"
#include "islands/common/spin_latch.hpp"

namespace islands {

//! Randomized exponential backoff between retries of an aborted transaction. After the
//! attempt-th consecutive abort it pauses a uniformly random number of spin steps below
//! 2^min(attempt + 1, kMaxShift), calling `poll` every kPollEvery steps (an instance serves
//! its inbound messages there). Randomness matters: two no-wait transactions that abort
//! each other and back off for equal times retry in lockstep and can livelock for good.
class AbortBackoff {
 public:
  static constexpr unsigned kMaxShift = 12;   //!< at most 4096 pause steps
  static constexpr unsigned kPollEvery = 64;  //!< steps between two calls of poll

  //! A generator of its own, so that backing off does not change the transactions drawn.
  explicit AbortBackoff(std::uint64_t seed) : rng_(seed ^ 0x6a09e667f3bcc909ULL) {}

  //! Waits after the attempt-th consecutive abort (0 for the first).
  template <class Poll>
  void pause(unsigned attempt, Poll&& poll) {
    const std::uint64_t steps = rng_.below(std::uint64_t{1} << std::min(attempt + 1, kMaxShift));
    for (std::uint64_t i = 0; i < steps; ++i) {
      if (i % kPollEvery == kPollEvery - 1) poll();
      cpu_relax();
    }
  }

  //! Waits with nothing to poll.
  void pause(unsigned attempt) {
    pause(attempt, [] {});
  }

 private:
  Random rng_;
};

}  // namespace islands
