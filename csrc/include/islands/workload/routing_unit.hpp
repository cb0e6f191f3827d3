#pragma once
#include <cstdint>

namespace islands {

//! Routing units per site: each site's range of routing keys is cut into this many equal
//! sub-ranges (paper 002's sub-partitions), the grain at which PLP moves data between its
//! workers (exec/plp_routing.hpp). Equal to atrapos::kSubPartitions.
inline constexpr std::uint32_t kUnitsPerSite = 10;

//! The routing unit of the key at `offset` (0 <= offset < per_site) of global site `site`,
//! whose range holds `per_site` keys: site * kUnitsPerSite + the sub-range of the offset.
inline std::uint64_t routing_unit(std::uint64_t site, std::uint64_t offset, std::uint64_t per_site) {
  return site * kUnitsPerSite + offset * kUnitsPerSite / per_site;
}

//! The global site of a routing unit.
inline std::uint64_t site_of_unit(std::uint64_t unit) { return unit / kUnitsPerSite; }

}  // namespace islands
