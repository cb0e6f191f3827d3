#pragma once
// TPC-C's string generators (clause 4.3.2) and the columns that never change after the load
// as functions of their row's key: the loader stores them, and an instance that needs them for
// a row another instance holds (a remote stock row's S_DIST_xx and S_DATA in NewOrder, the
// paying warehouse's and district's names in a remote Payment's H_DATA) recomputes the same
// bytes instead of asking for them.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "islands/common/random.hpp"
#include "islands/workload/tpcc_schema.hpp"

namespace islands::tpcc {

//! A random a-string (clause 4.3.2.2) of length [lo, hi] into `out` of capacity `width`
//! (zero-padded; a string of the full width has no terminator).
inline void a_string(Random& rng, char* out, std::size_t width, std::size_t lo, std::size_t hi) {
  static constexpr char kAlnum[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const std::size_t n = std::min(width, lo + rng.below(hi - lo + 1));
  for (std::size_t i = 0; i < n; ++i) out[i] = kAlnum[rng.below(sizeof kAlnum - 1)];
  std::memset(out + n, 0, width - n);
}
//! A random n-string (digits) of length [lo, hi] (clause 4.3.2.2).
inline void n_string(Random& rng, char* out, std::size_t width, std::size_t lo, std::size_t hi) {
  const std::size_t n = std::min(width, lo + rng.below(hi - lo + 1));
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<char>('0' + rng.below(10));
  std::memset(out + n, 0, width - n);
}
//! A zip code: 4 random digits and "11111" (clause 4.3.2.7).
inline void zip(Random& rng, char (&out)[9]) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>('0' + rng.below(10));
  std::memcpy(out + 4, "11111", 5);
}
//! A state: 2 random letters.
inline void state(Random& rng, char (&out)[2]) {
  for (char& c : out) c = static_cast<char>('A' + rng.below(26));
}
//! A random address (street 1 and 2 a-strings [10, 20], city [10, 20], state, zip).
inline void address(Random& rng, Address& a) {
  a_string(rng, a.street_1, sizeof a.street_1, 10, 20);
  a_string(rng, a.street_2, sizeof a.street_2, 10, 20);
  a_string(rng, a.city, sizeof a.city, 10, 20);
  state(rng, a.state);
  zip(rng, a.zip);
}
//! A data string of length [26, 50] with "ORIGINAL" at a random place in 10% of them
//! (I_DATA, S_DATA, clause 4.3.3.1).
inline void data_50(Random& rng, char (&out)[50]) {
  a_string(rng, out, sizeof out, 26, 50);
  if (rng.below(10) == 0) {
    const std::size_t len = strnlen(out, sizeof out);
    std::memcpy(out + rng.below(len - 8 + 1), "ORIGINAL", 8);
  }
}
//! Whether a fixed-width string holds "ORIGINAL" (NewOrder's brand-generic test, twice a
//! line). Only where an 'O' is (memchr, a few vector compares for a 50-byte string of
//! alphanumerics, one in 62 an 'O') are eight bytes compared: comparing at every place cost a
//! TPC-C transaction about 1,200 instructions of its 11,000.
inline bool has_original(const char* s, std::size_t width) {
  const std::size_t len = strnlen(s, width);
  if (len < 8) return false;
  const char* const last = s + len - 8;  // the last place "ORIGINAL" can start
  for (const char* at = s; at <= last; ++at) {
    at = static_cast<const char*>(std::memchr(at, 'O', static_cast<std::size_t>(last - at) + 1));
    if (at == nullptr) return false;
    if (std::memcmp(at, "ORIGINAL", 8) == 0) return true;
  }
  return false;
}
//! C_LAST of a number 0-999: its three digits' syllables (clause 4.3.2.3), at most 15 letters.
inline void last_name(std::uint64_t n, char (&out)[16]) {
  static constexpr const char* kSyllables[10] = {"BAR", "OUGHT", "ABLE", "PRI", "PRES",
                                                 "ESE", "ANTI",  "CALLY", "ATION", "EING"};
  std::memset(out, 0, sizeof out);
  std::size_t at = 0;
  for (std::uint64_t digit : {n / 100, n / 10 % 10, n % 10}) {
    const std::size_t len = std::strlen(kSyllables[digit]);
    std::memcpy(out + at, kSyllables[digit], len);
    at += len;
  }
}

//! A generator seeded by a row's key (and a purpose), for the columns computed from it.
inline Random keyed(std::uint64_t key, std::uint64_t purpose) { return Random(key * 0x9e3779b97f4a7c15ULL ^ purpose); }

//! W_NAME and the address of warehouse w.
inline void warehouse_text(std::uint64_t w, Warehouse::Text& t) {
  Random rng = keyed(Warehouse::key(w), 1);
  a_string(rng, t.name, sizeof t.name, 6, 10);
  address(rng, t.address);
}
//! D_NAME and the address of district d of warehouse w.
inline void district_text(std::uint64_t w, std::uint64_t d, District::Text& t) {
  Random rng = keyed(District::key(w, d), 2);
  a_string(rng, t.name, sizeof t.name, 6, 10);
  address(rng, t.address);
}
//! S_DIST_01..10 and S_DATA of item i's stock in warehouse w.
inline void stock_text(std::uint64_t w, std::uint64_t i, Stock::Text& t) {
  Random rng = keyed(Stock::key(w, i), 3);
  for (auto& dist : t.dist) a_string(rng, dist, sizeof dist, 24, 24);
  data_50(rng, t.data);
}
//! H_DATA: W_NAME, 4 spaces, D_NAME (clause 2.5.2.2), at most 24 characters.
inline void history_data(const char (&w_name)[10], const char (&d_name)[10], char (&out)[24]) {
  std::memset(out, 0, sizeof out);
  const std::size_t wl = strnlen(w_name, sizeof w_name), dl = strnlen(d_name, sizeof d_name);
  std::memcpy(out, w_name, wl);
  std::memcpy(out + wl, "    ", 4);
  std::memcpy(out + wl + 4, d_name, dl);
}

}  // namespace islands::tpcc
