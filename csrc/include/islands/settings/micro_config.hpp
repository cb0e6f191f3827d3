#pragma once
#include <cstdint>

#include "islands/common/setting_field.hpp"
#include "islands/common/zipf.hpp"

namespace islands {

//! The fields of MicroConfig: F(type, name, default, min, max, help) (see setting_field.hpp).
#define ISLANDS_MICRO_FIELDS(F)                                                                             \
  F(std::uint64_t, rows_per_site, 10000, 1, kUnbounded, "rows in each site (one site per worker core)")     \
  F(std::uint32_t, columns, 10, 1, 4096, "int32 payload columns per row (10 = 40 bytes)")                   \
  F(std::uint32_t, rows_per_txn, 10, 1, 10000, "distinct rows each transaction reads or updates")          \
  F(bool, update, false, kUnbounded, kUnbounded, "false: read the rows; true: update every column")         \
  F(double, multisite, 0.0, 0, 1, "fraction of transactions that are multisite, 0..1")                     \
  F(double, zipf_s, 0.0, 0, ZipfGenerator::kMaxSkew, "Zipf exponent of the row choice; 0 = uniform")     \
  F(double, read_share, 0.0, 0, 1,                                                                           \
    "update runs: fraction of transactions that only read their rows, 0..1 (a read/update mix)")

//! The microbenchmark of paper 000 (Sec 3.2, 7.3): every worker core owns one site of
//! `rows_per_site` rows; a transaction reads or updates `rows_per_txn` distinct rows.
//! Local: all rows from the worker's own site. Multisite: one row from its own site and the
//! rest from the whole key range. Row choice is uniform (zipf_s = 0) or Zipf with exponent s
//! (rank 0, the hottest, is the first key of the range being drawn from). With `update`, a
//! `read_share` of the transactions read their rows instead (a mix; read_share 0: all update).
struct MicroConfig {
  ISLANDS_SETTINGS(MicroConfig, "micro", "Microbenchmark parameters (paper 000, Sec 3.2)", ISLANDS_MICRO_FIELDS)

  //! Throws ConfigError naming the field and why.
  void validate() const;
};

}  // namespace islands
