#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace islands {

//! The bytes every IPC benchmark message carries: a pseudo-random pattern derived from the
//! run's seed and the message's sequence number, so a stale, reordered, truncated or
//! corrupted message does not match what the receiver expects.
struct MessagePattern {
  //! The byte the server XORs into every byte of a request to form its reply (an echo of the
  //! client's own bytes, or an untouched buffer, therefore fails verification).
  static constexpr std::uint8_t kReplyXor = 0xA5;

  //! Writes the request pattern of message `seq` (n bytes) into `out`.
  static void fill(std::uint8_t* out, std::size_t n, std::uint64_t seed, std::uint64_t seq);
  //! Writes `in` XOR kReplyXor into `out` (the server's reply to a verified request).
  static void reply(const std::uint8_t* in, std::uint8_t* out, std::size_t n);
  //! Index of the first byte where `got` and `expected` differ, or n when they are equal.
  static std::size_t first_difference(const std::uint8_t* got, const std::uint8_t* expected,
                                      std::size_t n);
  //! One line describing a mismatch at byte `at` of message `seq`, for errors.
  static std::string describe_mismatch(const char* what, std::uint64_t seq, std::size_t at,
                                       const std::uint8_t* got, const std::uint8_t* expected);
};

}  // namespace islands
