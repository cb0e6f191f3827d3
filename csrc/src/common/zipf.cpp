#include "islands/common/zipf.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace islands {
namespace {

// log1p(x)/x and expm1(x)/x with their limits at 0, for numerically stable integrals.
double log1p_over_x(double x) {
  return std::fabs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}
double expm1_over_x(double x) {
  return std::fabs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
}

}  // namespace

ZipfGenerator::ZipfGenerator(std::uint64_t n, double s) : n_(n), s_(s) {
  if (n == 0) throw std::invalid_argument("zipf: the number of items must be at least 1");
  if (!(s >= 0.0 && s <= kMaxSkew)) {
    throw std::invalid_argument("zipf_s: must be between 0 and " + std::to_string(kMaxSkew) +
                                ", got " + std::to_string(s));
  }
  if (s_ > 0) {
    // Ranks are 1-based inside the algorithm.
    h_integral_x1_ = h_integral(1.5) - 1.0;
    h_integral_n_ = h_integral(static_cast<double>(n_) + 0.5);
    threshold_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
  }
}

double ZipfGenerator::h(double x) const { return std::exp(-s_ * std::log(x)); }

double ZipfGenerator::h_integral(double x) const {
  const double log_x = std::log(x);
  return expm1_over_x((1.0 - s_) * log_x) * log_x;
}

double ZipfGenerator::h_integral_inverse(double x) const {
  double t = x * (1.0 - s_);
  if (t < -1.0) t = -1.0;  // numerical guard, as in the paper's algorithm
  return std::exp(log1p_over_x(t) * x);
}

std::uint64_t ZipfGenerator::next(Random& rng) const {
  if (s_ == 0) return rng.below(n_);
  for (;;) {
    const double u = h_integral_n_ + rng.unit() * (h_integral_x1_ - h_integral_n_);
    const double x = h_integral_inverse(u);
    double k = std::floor(x + 0.5);
    if (k < 1) k = 1;
    if (k > static_cast<double>(n_)) k = static_cast<double>(n_);
    if (k - x <= threshold_ || u >= h_integral(k + 0.5) - h(k)) {
      return static_cast<std::uint64_t>(k) - 1;
    }
  }
}

double ZipfGenerator::probability(std::uint64_t k) const {
  if (k >= n_) return 0.0;
  if (s_ == 0) return 1.0 / static_cast<double>(n_);
  double harmonic = 0;
  for (std::uint64_t i = n_; i >= 1; --i) harmonic += std::pow(static_cast<double>(i), -s_);
  return std::pow(static_cast<double>(k + 1), -s_) / harmonic;
}

}  // namespace islands
