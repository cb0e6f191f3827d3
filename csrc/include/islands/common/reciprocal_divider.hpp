#pragma once
#include <cstdint>
#include <limits>

namespace islands {

//! Division of 64-bit numbers by a divisor fixed at run time, by a multiplication with its
//! reciprocal where that is exact: the hot paths that map a key to its routing unit or index
//! root divide by the keys per site, and a 64-bit hardware division costs tens of cycles.
//!
//! With m = ceil(2^64 / n), floor(x * m / 2^64) == floor(x / n) for every x < 2^64 / n: the
//! error x * (m - 2^64 / n) / 2^64 stays below 1 / n, less than the distance from x / n to the
//! next integer. Larger x (and n = 1, whose m does not fit) take the hardware division.
class ReciprocalDivider {
 public:
  //! Divides by `divisor` (> 0).
  explicit ReciprocalDivider(std::uint64_t divisor)
      : divisor_(divisor),
        magic_(divisor > 1 ? std::numeric_limits<std::uint64_t>::max() / divisor + 1 : 0),
        exact_below_(divisor > 1 ? std::numeric_limits<std::uint64_t>::max() / divisor : 0) {}

  //! floor(x / divisor).
  std::uint64_t divide(std::uint64_t x) const noexcept {
    if (x < exact_below_) return static_cast<std::uint64_t>((static_cast<unsigned __int128>(x) * magic_) >> 64);
    return x / divisor_;
  }
  //! The divisor.
  std::uint64_t divisor() const noexcept { return divisor_; }

 private:
  std::uint64_t divisor_;
  std::uint64_t magic_;        // ceil(2^64 / divisor) for divisor > 1
  std::uint64_t exact_below_;  // the multiplication is exact for x below this
};

}  // namespace islands
