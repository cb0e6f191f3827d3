#include "islands/common/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace islands {

int LatencyHistogram::bucket_of(std::uint64_t ns) {
  if (ns < 2 * kSub) return static_cast<int>(ns);
  const int exponent = 63 - __builtin_clzll(ns);  // >= kSubBits + 1
  if (exponent > kMaxExponent) return kBuckets - 1;
  const int sub = static_cast<int>((ns >> (exponent - kSubBits)) & (kSub - 1));
  return 2 * kSub + (exponent - kSubBits - 1) * kSub + sub;
}

std::uint64_t LatencyHistogram::bucket_low(int bucket) {
  if (bucket < 2 * kSub) return static_cast<std::uint64_t>(bucket);
  const int exponent = (bucket - 2 * kSub) / kSub + kSubBits + 1;
  const int sub = (bucket - 2 * kSub) % kSub;
  return (std::uint64_t{1} << exponent) + (static_cast<std::uint64_t>(sub) << (exponent - kSubBits));
}

std::uint64_t LatencyHistogram::bucket_high(int bucket) {
  if (bucket < 2 * kSub) return static_cast<std::uint64_t>(bucket);
  const int exponent = (bucket - 2 * kSub) / kSub + kSubBits + 1;
  return bucket_low(bucket) + (std::uint64_t{1} << (exponent - kSubBits)) - 1;
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
}

void LatencyHistogram::clear() {
  counts_.fill(0);
  total_ = 0;
}

double LatencyHistogram::quantile(double q) const {
  if (total_ == 0) return 0.0;
  q = std::clamp(q, 0.0, 1.0);
  const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(total_)));
  std::uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= std::max<std::uint64_t>(rank, 1)) return static_cast<double>(bucket_high(i));
  }
  return static_cast<double>(bucket_high(kBuckets - 1));
}

double LatencyHistogram::mean() const {
  if (total_ == 0) return 0.0;
  double sum = 0;
  for (int i = 0; i < kBuckets; ++i) {
    if (counts_[i]) {
      sum += static_cast<double>(counts_[i]) * 0.5 *
             static_cast<double>(bucket_low(i) + bucket_high(i));
    }
  }
  return sum / static_cast<double>(total_);
}

}  // namespace islands
