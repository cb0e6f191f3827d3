// TATP's non-uniform subscriber draw against its exact distribution (chi-square).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "check.hpp"
#include "islands/common/random.hpp"
#include "islands/settings/tatp_config.hpp"

namespace {

using islands::Random;

// P(id = k) for (rand(0, A) | rand(1, P)) % P, by enumerating every pair.
std::vector<double> exact_distribution(std::uint64_t population, std::uint64_t a) {
  std::vector<double> p(population, 0.0);
  const double each = 1.0 / (static_cast<double>(a + 1) * static_cast<double>(population));
  for (std::uint64_t x = 0; x <= a; ++x) {
    for (std::uint64_t y = 1; y <= population; ++y) p[(x | y) % population] += each;
  }
  return p;
}

double chi_square(const std::vector<std::uint64_t>& seen, const std::vector<double>& p, std::uint64_t n) {
  double chi = 0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double expected = p[k] * static_cast<double>(n);
    const double d = static_cast<double>(seen[k]) - expected;
    chi += d * d / expected;
  }
  return chi;
}

// The chi-square quantile for df degrees of freedom at about 1 - 1e-6 (Wilson-Hilferty).
double critical(double df) {
  const double z = 4.75;
  const double t = 1.0 - 2.0 / (9.0 * df) + z * std::sqrt(2.0 / (9.0 * df));
  return df * t * t * t;
}

void test_population(std::uint64_t population) {
  const std::vector<double> exact = exact_distribution(population, 65535);
  const std::uint64_t n = 2000000;
  std::vector<std::uint64_t> seen(population, 0);
  Random rng(42 + population);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t id = islands::tatp_nonuniform_id(rng, population);
    CHECK(id < population);
    if (id < population) ++seen[id];
  }
  const double df = static_cast<double>(population - 1);
  const double against_exact = chi_square(seen, exact, n);
  const std::vector<double> uniform(population, 1.0 / static_cast<double>(population));
  const double against_uniform = chi_square(seen, uniform, n);
  std::printf("population %llu: chi-square %.0f against the specification's draw, %.0f against uniform "
              "(critical %.0f)\n",
              static_cast<unsigned long long>(population), against_exact, against_uniform, critical(df));
  CHECK(against_exact < critical(df));
  // The draw is skewed: a uniform draw would be rejected by the same test.
  CHECK(against_uniform > critical(df));
}

}  // namespace

int main() {
  for (std::uint64_t population : {std::uint64_t{1000}, std::uint64_t{3000}}) test_population(population);
  // The spread constant follows the population's size.
  Random rng(7);
  for (int i = 0; i < 100000; ++i) CHECK(islands::tatp_nonuniform_id(rng, 20000000) < 20000000);
  return test_summary("tatp_ids");
}
