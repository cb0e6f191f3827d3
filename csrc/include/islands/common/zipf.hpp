#pragma once
#include <cstdint>

#include "islands/common/random.hpp"

namespace islands {

//! Zipf-distributed ranks in [0, n): P(rank k) ∝ 1 / (k+1)^s, for any s >= 0 (s = 0 is uniform).
//! Rejection-inversion sampling (Hörmann and Derflinger, 1996): O(1) per sample, no table,
//! valid for s = 1 and s > 1 too. Rank 0 is the hottest.
class ZipfGenerator {
 public:
  //! n: number of items (>= 1); s: skew exponent (0 <= s <= kMaxSkew).
  ZipfGenerator(std::uint64_t n, double s);

  //! One rank in [0, n).
  std::uint64_t next(Random& rng) const;

  //! Probability of rank k (for tests), computed from the generalized harmonic number.
  double probability(std::uint64_t k) const;

  std::uint64_t n() const { return n_; }  //!< number of items
  double s() const { return s_; }         //!< skew exponent

  //! Largest skew accepted; beyond it nearly every draw is rank 0 anyway.
  static constexpr double kMaxSkew = 10.0;

 private:
  double h(double x) const;
  double h_integral(double x) const;
  double h_integral_inverse(double x) const;

  std::uint64_t n_;
  double s_;
  double h_integral_x1_ = 0, h_integral_n_ = 0, threshold_ = 0;
  double harmonic_ = 0;  // only computed lazily by probability()
};

}  // namespace islands
