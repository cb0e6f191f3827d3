#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "islands/common/pod_vector.hpp"

namespace islands {

//! The payload of a command record (LogRecordType::command, log.content = command): the words
//! of a local transaction, which recovery executes again in log order, instead of its
//! after-images. LEB128 throughout: [word count][word] x count, then the record's zero
//! padding. A TPC-C NewOrder's command keeps its 36 home words (ids and quantities, for 10
//! lines; TpccWorkload::command_words), about 45 bytes, where its after-images take about 1,000.

//! Appends the command of the `n` words at `words` to `out`.
inline void append_command(PodVector<unsigned char>& out, const std::uint64_t* words, std::size_t n) {
  unsigned char* at = out.grow_by(10 * (n + 1));  // the longest a count and n words can take
  auto put = [&at](std::uint64_t v) {
    while (v >= 0x80) {
      *at++ = static_cast<unsigned char>(v | 0x80);
      v >>= 7;
    }
    *at++ = static_cast<unsigned char>(v);
  };
  put(n);
  for (std::size_t i = 0; i < n; ++i) put(words[i]);
  out.truncate(static_cast<std::size_t>(at - out.data()));
}

//! Decodes the command in the `n` bytes at `data` into `words`; false when they are not one
//! command and its padding: cut short, a number longer than 64 bits, more words than bytes, or
//! trailing bytes that are not fewer than 8 zeros.
inline bool decode_command(const unsigned char* data, std::size_t n, std::vector<std::uint64_t>& words) {
  std::size_t at = 0;
  auto get = [&](std::uint64_t& v) {
    v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (at == n) return false;
      const unsigned char byte = data[at++];
      if (shift == 63 && byte > 1) return false;
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return true;
    }
    return false;
  };
  std::uint64_t count = 0;
  if (!get(count) || count > n - at) return false;
  words.resize(count);
  for (auto& word : words) {
    if (!get(word)) return false;
  }
  if (n - at >= 8) return false;
  for (; at < n; ++at) {
    if (data[at] != 0) return false;
  }
  return true;
}

}  // namespace islands
