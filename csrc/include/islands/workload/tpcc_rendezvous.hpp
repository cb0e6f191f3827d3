#pragma once
// What TPC-C NewOrder's steps hand its lines step at a PLP rendezvous (002 Fig 7;
// exec/plp/plp_stages.hpp): per order line, the supplying stock row's S_DIST_xx of the order's
// district (OL_DIST_INFO) and whether its S_DATA holds "ORIGINAL" (the brand-generic test),
// from the stock steps; the order's number and its items' "ORIGINAL" tests, from the home
// step. The lines step then completes the order lines without reading another partition's
// stock row.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace islands::tpcc {

//! One order line's stock data as records of words: [item | supply_w << 32, the 24 bytes of
//! S_DIST_xx in three words, original 0/1]. The line is named by (item, supply warehouse),
//! which NewOrder draws distinct within an order (items are numbered from 1). The home step's
//! record has the same size and names line 0: [0, order number, bit k: line k's item is
//! "ORIGINAL", 0, 0].
struct StockLineRecord {
  static constexpr std::size_t kWords = 5;  //!< words per record
  static constexpr std::size_t kDistBytes = 24;  //!< S_DIST_xx, OL_DIST_INFO

  //! Appends the record of the line of `item` supplied by warehouse `supply_w` to `out`.
  static void append(std::vector<std::uint64_t>& out, std::uint64_t supply_w, std::uint64_t item,
                     const char (&dist)[kDistBytes], bool original) {
    const std::size_t at = out.size();
    out.resize(at + kWords);
    out[at] = line(supply_w, item);
    std::memcpy(&out[at + 1], dist, kDistBytes);
    out[at + 4] = original ? 1 : 0;
  }
  //! Appends the home step's record: the order's number and its items' "ORIGINAL" bits.
  static void append_order(std::vector<std::uint64_t>& out, std::uint64_t order, std::uint64_t item_original) {
    out.insert(out.end(), {0, order, item_original, 0, 0});
  }
  //! The home step's record among the `n` words at `in`, nullptr when none is there.
  static const std::uint64_t* find_order(const std::uint64_t* in, std::size_t n) { return find(in, n, 0, 0); }
  //! The order number of the home step's record.
  static std::uint64_t order(const std::uint64_t* record) { return record[1]; }
  //! Its items' "ORIGINAL" bits (bit k: line k).
  static std::uint64_t item_original(const std::uint64_t* record) { return record[2]; }

  //! The record of the line of (`supply_w`, `item`) among the `n` words at `in`, nullptr when
  //! none is there.
  static const std::uint64_t* find(const std::uint64_t* in, std::size_t n, std::uint64_t supply_w,
                                   std::uint64_t item) {
    const std::uint64_t wanted = line(supply_w, item);
    for (std::size_t at = 0; at + kWords <= n; at += kWords) {
      if (in[at] == wanted) return in + at;
    }
    return nullptr;
  }
  //! The record's S_DIST_xx (24 bytes, no terminator).
  static const char* dist_info(const std::uint64_t* record) { return reinterpret_cast<const char*>(record + 1); }
  //! Whether the record's S_DATA holds "ORIGINAL".
  static bool original(const std::uint64_t* record) { return record[4] != 0; }

 private:
  static std::uint64_t line(std::uint64_t supply_w, std::uint64_t item) { return item | (supply_w << 32); }
};

}  // namespace islands::tpcc
