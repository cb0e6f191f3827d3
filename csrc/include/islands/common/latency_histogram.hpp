#pragma once
#include <array>
#include <cstdint>

namespace islands {

//! Log-linear latency histogram in nanoseconds (HDR-style): exact below 64 ns, then 32 linear
//! sub-buckets per power of two (relative error under 3.2%), up to about 18 minutes.
class LatencyHistogram {
 public:
  static constexpr int kSubBits = 5;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kMaxExponent = 40;
  static constexpr int kBuckets = 2 * kSub + (kMaxExponent - kSubBits) * kSub;

  //! Counts one sample of `ns` nanoseconds.
  void record(std::uint64_t ns) { ++counts_[bucket_of(ns)]; ++total_; }
  //! Adds another histogram's samples to this one.
  void merge(const LatencyHistogram& other);
  //! Drops every sample.
  void clear();
  //! Number of samples.
  std::uint64_t count() const { return total_; }
  //! The q-quantile (0 <= q <= 1) in nanoseconds: the upper edge of the bucket holding it; 0 if empty.
  double quantile(double q) const;
  //! Mean in nanoseconds, from bucket midpoints.
  double mean() const;

  //! Calls f(bucket, count) for every non-empty bucket.
  template <class F>
  void for_each_bucket(F&& f) const {
    for (int i = 0; i < kBuckets; ++i) {
      if (counts_[i]) f(i, counts_[i]);
    }
  }
  //! Adds count samples to a bucket (rebuilding a histogram from for_each_bucket).
  void add_bucket(int bucket, std::uint64_t count) {
    counts_[bucket] += count;
    total_ += count;
  }

  static int bucket_of(std::uint64_t ns);
  static std::uint64_t bucket_low(int bucket);
  static std::uint64_t bucket_high(int bucket);

 private:
  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t total_ = 0;
};

}  // namespace islands
