#pragma once
#include <cstdint>

namespace islands {

//! The microbenchmark of paper 000 (Sec 3.2, 7.3): every worker core owns one site of
//! `rows_per_site` rows; a transaction reads or updates `rows_per_txn` distinct rows.
//! Local: all rows from the worker's own site. Multisite: one row from its own site and the
//! rest from the whole key range. Row choice is uniform (zipf_s = 0) or Zipf with exponent s
//! (rank 0, the hottest, is the first key of the range being drawn from).
struct MicroConfig {
  std::uint64_t rows_per_site = 10000;  //!< rows in each site (one site per worker core)
  std::uint32_t columns = 10;           //!< int32 payload columns per row (10 = 40 bytes)
  std::uint32_t rows_per_txn = 10;      //!< distinct rows each transaction touches
  bool update = false;                  //!< false: read the rows; true: update every column
  double multisite = 0.0;               //!< fraction of transactions that are multisite, 0..1
  double zipf_s = 0.0;                  //!< Zipf exponent; 0 = uniform

  //! Throws std::invalid_argument naming the field and why.
  void validate() const;
};

}  // namespace islands
