#pragma once
#include <cstdint>
#include <vector>

#include "islands/common/random.hpp"

namespace islands {

//! Zipf-distributed ranks in [0, n): P(rank k) ∝ 1 / (k+1)^s, for any s >= 0 (s = 0 is uniform).
//!
//! Cost per draw is the same at every s: an alias table over a few hundred to a few thousand
//! rank *buckets*, then a uniform rank inside the bucket, accepted with probability
//! w(rank) / w(first rank of the bucket) (rejection under a step envelope, so the result is
//! exactly Zipf). Buckets grow geometrically with the rank, so that inside one the weight
//! varies by at most kSqueeze; a precomputed squeeze accepts all but about 1/32 of the draws
//! without a pow(), and about 1 in 32 attempts is rejected. The table is built once (O(number of
//! buckets), not O(n)) and stays small enough for the first-level caches at the skews the
//! figures use (s <= 1.5: under 1,000 buckets for a billion ranks), so the sampler adds neither
//! transcendental functions nor cache misses to the measured transactions. Rank 0 is the hottest.
//! Probabilities are exact up to the 64-bit fixed-point coins (relative error below 1e-9).
class ZipfGenerator {
 public:
  //! n: number of items (>= 1); s: skew exponent (0 <= s <= kMaxSkew).
  ZipfGenerator(std::uint64_t n, double s);

  //! One rank in [0, n).
  std::uint64_t next(Random& rng) const {
    if (s_ == 0) return rng.below(n_);
    for (;;) {
      // One 64-bit draw picks the alias slot (high half of r * slots) and its coin (low half);
      // the slot or its alias is chosen without a branch (a coin flip would mispredict).
      const unsigned __int128 pick = static_cast<unsigned __int128>(rng.next()) * slots_.size();
      const std::uint64_t slot = static_cast<std::uint64_t>(pick >> 64);
      const std::uint64_t other = slots_[slot].alias;
      const std::uint64_t flip = -static_cast<std::uint64_t>(static_cast<std::uint64_t>(pick) >= slots_[slot].keep);
      const Slot& bucket = slots_[slot ^ ((slot ^ other) & flip)];
      // A second one picks the rank inside the bucket (high half) and the acceptance coin
      // (low half); always drawn, even for one-rank buckets, so that no branch depends on the
      // bucket: the one left (coin under the squeeze) is taken ~98% of the time.
      const unsigned __int128 inner = static_cast<unsigned __int128>(rng.next()) * bucket.size;
      const std::uint64_t rank = bucket.first + static_cast<std::uint64_t>(inner >> 64);
      const std::uint64_t coin = static_cast<std::uint64_t>(inner);
      if (coin < bucket.squeeze || accept_slow(bucket.first, rank, coin)) [[likely]] return rank - 1;
    }
  }

  //! Probability of rank k (for tests), computed from the generalized harmonic number.
  double probability(std::uint64_t k) const;

  std::uint64_t n() const { return n_; }       //!< number of items
  double s() const { return s_; }              //!< skew exponent
  std::size_t buckets() const { return slots_.size(); }  //!< size of the alias table

  //! Largest skew accepted; beyond it nearly every draw is rank 0 anyway.
  static constexpr double kMaxSkew = 10.0;
  //! Inside one bucket the weight falls by at most this factor (1 - 1/32): the envelope's waste.
  static constexpr double kSqueeze = 1.0 - 1.0 / 32.0;

 private:
  // One alias-table slot and the bucket it stands for: ranks [first, first + size), 1-based.
  struct Slot {
    std::uint64_t first;    // first rank of the bucket (1-based)
    std::uint64_t size;     // ranks in the bucket
    std::uint64_t squeeze;  // 2^64 * a lower bound of (first / rank)^s over the bucket
    std::uint64_t keep;     // 2^64 * probability of keeping this slot's bucket (else alias)
    std::uint32_t alias;    // the other bucket of this slot
  };

  // The exact test, for the ~1/32 of coins between the squeeze and the weight ratio.
  bool accept_slow(std::uint64_t first, std::uint64_t rank, std::uint64_t coin) const;

  std::uint64_t n_;
  double s_;
  std::vector<Slot> slots_;
};

}  // namespace islands
