#pragma once
// What TPC-C NewOrder's stock step hands its home step at a PLP rendezvous (002 Fig 7;
// exec/plp_stages.hpp): per order line, the supplying stock row's S_DIST_xx of the order's
// district (OL_DIST_INFO) and whether its S_DATA holds "ORIGINAL" (the brand-generic test). The
// home step then writes its order lines without reading another partition's stock row.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace islands::tpcc {

//! One order line's stock data as records of words: [item | supply_w << 32, the 24 bytes of
//! S_DIST_xx in three words, original 0/1]. The line is named by (item, supply warehouse),
//! which NewOrder draws distinct within an order.
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
