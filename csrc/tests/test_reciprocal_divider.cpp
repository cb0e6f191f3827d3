// ReciprocalDivider against the hardware division: every divisor's edge cases (multiples,
// one below, the exactness bound and around it, the largest numbers) and random pairs.
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "check.hpp"
#include "islands/common/reciprocal_divider.hpp"

using islands::ReciprocalDivider;

namespace {

void check_around(const ReciprocalDivider& d, std::uint64_t x) {
  for (std::uint64_t dx = 0; dx < 3; ++dx) {
    for (const std::uint64_t y : {x - dx, x + dx}) CHECK(d.divide(y) == y / d.divisor());
  }
}

}  // namespace

int main() {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::uint64_t> divisors = {1, 2, 3, 7, 10, 1000, 100000, 1000000007, 1ULL << 32, (1ULL << 32) + 1,
                                         kMax / 3, kMax - 1, kMax};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) divisors.push_back(rng() >> (rng() % 64) | 1);
  for (const std::uint64_t n : divisors) {
    const ReciprocalDivider d(n);
    for (const std::uint64_t q : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{10}, std::uint64_t{12345}}) {
      if (q != 0 && n > kMax / q) continue;
      check_around(d, q * n);
    }
    check_around(d, kMax / n);  // the exactness bound: the multiplication below it, the division from it
    check_around(d, kMax / 2);
    check_around(d, kMax - 3);
    for (int i = 0; i < 2000; ++i) {
      const std::uint64_t x = rng() >> (rng() % 64);
      CHECK(d.divide(x) == x / n);
    }
  }
  // Exhaustive over small numbers for small divisors (the routing hot path: keys * 10 / keys per site).
  for (std::uint64_t n = 1; n < 100; ++n) {
    const ReciprocalDivider d(n);
    for (std::uint64_t x = 0; x < 20000; ++x) CHECK(d.divide(x) == x / n);
  }
  return test_summary("test_reciprocal_divider");
}
