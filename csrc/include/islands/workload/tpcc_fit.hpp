#pragma once
#include <cstdint>
#include <vector>

#include "islands/exec/load_size.hpp"
#include "islands/settings/tpcc_config.hpp"

namespace islands {

//! TpccConfig::validate, plus that the deployment's `total_sites` sites hold enough warehouses
//! and that their load fits in the memory available now (ConfigError naming the field
//! otherwise). Here rather than in settings/ because the estimate reads the schema's row widths.
void validate_tpcc_fit(const TpccConfig& config, std::uint64_t total_sites);
//! Bytes the load of `total_sites` sites allocates (rows and indexes), estimated before it:
//! load_bytes of tpcc_load_size, every site counted as an instance (its own Item table).
std::uint64_t tpcc_load_bytes(const TpccConfig& config, std::uint64_t total_sites);
//! TPC-C's nine tables as `config` sizes them (TpccWorkload::load_size): rows a site and an
//! instance, the layout's row widths, and index bytes a row.
std::vector<TableLoad> tpcc_load_size(const TpccConfig& config);

}  // namespace islands
