#include "islands/log/crc32c.hpp"

#include <array>
#include <cstring>
#include <vector>

namespace islands {
namespace {

constexpr std::uint32_t kPolynomial = 0x82f63b78;  // CRC-32C, reflected

struct Tables {
  std::array<std::array<std::uint32_t, 256>, 8> t{};
  Tables() {
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
      t[0][i] = c;
    }
    for (std::uint32_t i = 0; i < 256; ++i) {
      for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
    }
  }
};

const Tables& tables() {
  static const Tables instance;
  return instance;
}

#if defined(__x86_64__)
// The crc32 instruction has a latency of about 3 cycles and a throughput of 1 per cycle, so
// one stream of 8-byte steps runs at a third of its speed. Records of a few hundred bytes
// (TPC-C's are 700 on average) are therefore checksummed in rounds of three interleaved
// streams of S bytes (S = 128, then 64), joined by carrying a stream's register over the
// bytes that follow it: a linear map on the 32-bit register, tabulated once per distance.
__attribute__((target("sse4.2"))) std::uint32_t crc32c_words(std::uint32_t c, const unsigned char* p, std::size_t n) {
  std::uint64_t c64 = c;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    c64 = __builtin_ia32_crc32di(c64, word);
  }
  return static_cast<std::uint32_t>(c64);
}

// carry(c): the raw register c carried over `distance` zero bytes, tabulated byte by byte of c.
struct Carry {
  std::array<std::array<std::uint32_t, 256>, 4> t{};
  __attribute__((target("sse4.2"))) explicit Carry(std::size_t distance) {
    const std::vector<unsigned char> zeros(distance, 0);
    for (int k = 0; k < 4; ++k) {
      for (std::uint32_t b = 0; b < 256; ++b) t[k][b] = crc32c_words(b << (8 * k), zeros.data(), distance);
    }
  }
  std::uint32_t operator()(std::uint32_t c) const {
    return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
  }
};

// Rounds of 3 x S bytes while they last. Stream a continues the register, b and c start from
// zero; the register is linear, so crc(a b c) = carry_2S(a) ^ carry_S(b) ^ c.
template <std::size_t S>
__attribute__((target("sse4.2"))) std::uint32_t crc32c_rounds(std::uint32_t c, const unsigned char*& p, std::size_t& n) {
  static const Carry carry_one(S), carry_two(2 * S);
  while (n >= 3 * S) {
    std::uint64_t a = c, b = 0, d = 0;
    for (std::size_t i = 0; i < S; i += 8) {
      std::uint64_t wa, wb, wd;
      std::memcpy(&wa, p + i, 8);
      std::memcpy(&wb, p + S + i, 8);
      std::memcpy(&wd, p + 2 * S + i, 8);
      a = __builtin_ia32_crc32di(a, wa);
      b = __builtin_ia32_crc32di(b, wb);
      d = __builtin_ia32_crc32di(d, wd);
    }
    c = carry_two(static_cast<std::uint32_t>(a)) ^ carry_one(static_cast<std::uint32_t>(b)) ^ static_cast<std::uint32_t>(d);
    p += 3 * S;
    n -= 3 * S;
  }
  return c;
}

__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(const void* data, std::size_t n, std::uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = crc32c_rounds<128>(~crc, p, n);
  c = crc32c_rounds<64>(c, p, n);
  c = crc32c_words(c, p, n);
  p += n & ~std::size_t{7};
  for (n &= 7; n > 0; --n) c = __builtin_ia32_crc32qi(c, *p++);
  return ~c;
}
#endif

using CrcFunction = std::uint32_t (*)(const void*, std::size_t, std::uint32_t);

CrcFunction chosen() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("sse4.2")) return crc32c_sse42;
#endif
  return crc32c_portable;
}

}  // namespace

bool crc32c_in_hardware() { return chosen() != crc32c_portable; }

std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc) {
  static const CrcFunction function = chosen();
  return function(data, n, crc);
}

std::uint32_t crc32c_portable(const void* data, std::size_t n, std::uint32_t crc) {
  const auto& t = tables().t;
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  // Slicing by 8: one table lookup per byte, eight independent ones per step.
  while (n >= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    word ^= crc;
    crc = t[7][word & 0xff] ^ t[6][(word >> 8) & 0xff] ^ t[5][(word >> 16) & 0xff] ^
          t[4][(word >> 24) & 0xff] ^ t[3][(word >> 32) & 0xff] ^ t[2][(word >> 40) & 0xff] ^
          t[1][(word >> 48) & 0xff] ^ t[0][word >> 56];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
  return ~crc;
}

}  // namespace islands
