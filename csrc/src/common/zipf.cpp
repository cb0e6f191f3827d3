#include "islands/common/zipf.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace islands {
namespace {

constexpr double kTwo64 = 18446744073709551616.0;  // 2^64

// p in [0, 1] as a 64-bit fixed-point threshold: coin < result happens with probability p
// (up to 2^-64); p = 1 saturates (the caller makes such a slot point at itself).
std::uint64_t fixed_point(double p) {
  if (!(p > 0)) return 0;
  if (p >= 1) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(p * kTwo64);
}

}  // namespace

ZipfGenerator::ZipfGenerator(std::uint64_t n, double s) : n_(n), s_(s) {
  if (n == 0) throw std::invalid_argument("zipf: the number of items must be at least 1");
  if (!(s >= 0.0 && s <= kMaxSkew)) {
    throw std::invalid_argument("zipf_s: must be between 0 and " + std::to_string(kMaxSkew) +
                                ", got " + std::to_string(s));
  }
  if (s_ == 0) return;
  // Buckets [a, e): the last rank e-1 may be at most a * growth, so that the weight ratio
  // (a / rank)^s stays >= kSqueeze inside the bucket.
  const double growth = std::pow(kSqueeze, -1.0 / s_);
  std::vector<double> mass;  // envelope mass of each bucket: size * a^-s
  const double last = static_cast<double>(n_);
  for (std::uint64_t a = 1; a <= n_;) {
    const double reach = std::floor(static_cast<double>(a) * growth);
    std::uint64_t end = reach >= last ? n_ : static_cast<std::uint64_t>(reach);  // last rank
    if (end < a) end = a;
    const std::uint64_t size = end - a + 1;
    const double ratio = std::exp(-s_ * std::log(static_cast<double>(end) / static_cast<double>(a)));
    // Round the squeeze down by a hair so that it stays a lower bound after rounding.
    slots_.push_back({a, size, size == 1 ? std::numeric_limits<std::uint64_t>::max()
                                         : fixed_point(ratio * (1 - 1e-12)),
                      0, 0});
    mass.push_back(static_cast<double>(size) * std::exp(-s_ * std::log(static_cast<double>(a))));
    if (end == n_) break;
    a = end + 1;
  }
  if (slots_.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("zipf: too many buckets");
  }
  // Vose's alias method over the bucket masses.
  const std::size_t m = slots_.size();
  double total = 0;
  for (double x : mass) total += x;
  std::vector<double> scaled(m);
  std::vector<std::uint32_t> small, large;
  for (std::size_t i = 0; i < m; ++i) {
    scaled[i] = mass[i] * static_cast<double>(m) / total;
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    const std::uint32_t lo = small.back();
    small.pop_back();
    const std::uint32_t hi = large.back();
    slots_[lo].keep = fixed_point(scaled[lo]);
    slots_[lo].alias = hi;
    scaled[hi] = (scaled[hi] + scaled[lo]) - 1.0;
    if (scaled[hi] < 1.0) {
      large.pop_back();
      small.push_back(hi);
    }
  }
  // What is left is full up to rounding: keep always.
  for (std::uint32_t i : small) slots_[i] = {slots_[i].first, slots_[i].size, slots_[i].squeeze,
                                             std::numeric_limits<std::uint64_t>::max(), i};
  for (std::uint32_t i : large) slots_[i] = {slots_[i].first, slots_[i].size, slots_[i].squeeze,
                                             std::numeric_limits<std::uint64_t>::max(), i};
}

bool ZipfGenerator::accept_slow(std::uint64_t first, std::uint64_t rank, std::uint64_t coin) const {
  if (rank == first) return true;  // weight ratio 1 (a saturated squeeze misses only coin = 2^64 - 1)
  const double ratio = std::exp(-s_ * std::log(static_cast<double>(rank) / static_cast<double>(first)));
  return (static_cast<double>(coin) + 0.5) < ratio * kTwo64;
}

double ZipfGenerator::probability(std::uint64_t k) const {
  if (k >= n_) return 0.0;
  if (s_ == 0) return 1.0 / static_cast<double>(n_);
  double harmonic = 0;
  for (std::uint64_t i = n_; i >= 1; --i) harmonic += std::pow(static_cast<double>(i), -s_);
  return std::pow(static_cast<double>(k + 1), -s_) / harmonic;
}

}  // namespace islands
