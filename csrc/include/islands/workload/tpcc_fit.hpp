#pragma once
#include <cstdint>

#include "islands/settings/tpcc_config.hpp"

namespace islands {

//! TpccConfig::validate, plus that the deployment's `total_sites` sites hold enough warehouses
//! and that their load fits in the memory available now (ConfigError naming the field
//! otherwise). Here rather than in settings/ because the estimate reads the schema's row widths.
void validate_tpcc_fit(const TpccConfig& config, std::uint64_t total_sites);
//! Bytes the load of `total_sites` sites allocates (rows and indexes), estimated before it.
std::uint64_t tpcc_load_bytes(const TpccConfig& config, std::uint64_t total_sites);

}  // namespace islands
