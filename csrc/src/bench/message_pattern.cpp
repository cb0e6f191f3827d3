#include "islands/bench/message_pattern.hpp"

#include <cstdio>
#include <cstring>

namespace islands {

namespace {

// splitmix64's finaliser: cheap, and every input bit reaches every output bit.
inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

}  // namespace

void MessagePattern::fill(std::uint8_t* out, std::size_t n, std::uint64_t seed, std::uint64_t seq) {
  // One base per message, then one mixed word per 8 bytes: a stale message (another seq) or
  // a shifted one (another offset) differs in almost every byte.
  const std::uint64_t base = mix(seed * 0x9E3779B97F4A7C15ull + mix(seq + 1));
  std::size_t i = 0;
  for (std::uint64_t k = 0; i + 8 <= n; ++k, i += 8) {
    const std::uint64_t word = mix(base + k * 0x9E3779B97F4A7C15ull);
    std::memcpy(out + i, &word, 8);
  }
  if (i < n) {
    const std::uint64_t word = mix(base + (n / 8) * 0x9E3779B97F4A7C15ull);
    std::memcpy(out + i, &word, n - i);
  }
}

void MessagePattern::reply(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(in[i] ^ kReplyXor);
}

std::size_t MessagePattern::first_difference(const std::uint8_t* got, const std::uint8_t* expected,
                                             std::size_t n) {
  if (std::memcmp(got, expected, n) == 0) return n;
  std::size_t i = 0;
  while (i < n && got[i] == expected[i]) ++i;
  return i;
}

std::string MessagePattern::describe_mismatch(const char* what, std::uint64_t seq, std::size_t at,
                                              const std::uint8_t* got, const std::uint8_t* expected) {
  char text[160];
  std::snprintf(text, sizeof text, "%s %llu corrupted at byte %zu (got 0x%02x, expected 0x%02x)",
                what, static_cast<unsigned long long>(seq), at, got[at], expected[at]);
  return text;
}

}  // namespace islands
