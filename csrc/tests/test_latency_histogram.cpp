#include "check.hpp"
#include "islands/common/latency_histogram.hpp"

using islands::LatencyHistogram;

int main() {
  // Buckets tile the range with no gap and no overlap, with bounded relative width.
  for (int b = 0; b + 1 < LatencyHistogram::kBuckets; ++b) {
    CHECK(LatencyHistogram::bucket_high(b) + 1 == LatencyHistogram::bucket_low(b + 1));
    CHECK(LatencyHistogram::bucket_of(LatencyHistogram::bucket_low(b)) == b);
    CHECK(LatencyHistogram::bucket_of(LatencyHistogram::bucket_high(b)) == b);
    const double low = static_cast<double>(LatencyHistogram::bucket_low(b));
    const double high = static_cast<double>(LatencyHistogram::bucket_high(b));
    CHECK(low < 64 || (high - low) / low < 1.0 / 32 + 1e-9);
  }
  LatencyHistogram h;
  CHECK(h.quantile(0.5) == 0.0);
  for (std::uint64_t v = 1; v <= 1000; ++v) h.record(v);
  CHECK(h.count() == 1000);
  CHECK(h.quantile(0.0) == 1.0);
  const double p50 = h.quantile(0.5), p99 = h.quantile(0.99);
  CHECK(p50 >= 500 && p50 <= 500 * 1.04);
  CHECK(p99 >= 990 && p99 <= 990 * 1.04);
  CHECK(h.quantile(1.0) >= 1000);
  CHECK(h.mean() > 490 && h.mean() < 510);
  LatencyHistogram other;
  other.record(1'000'000);
  h.merge(other);
  CHECK(h.count() == 1001);
  CHECK(h.quantile(1.0) >= 1'000'000 && h.quantile(1.0) <= 1'040'000);
  h.clear();
  CHECK(h.count() == 0);
  h.record(~std::uint64_t{0});  // beyond the range: clamped into the last bucket
  CHECK(h.count() == 1);
  return test_summary("latency_histogram");
}
