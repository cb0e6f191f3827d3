#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>

namespace islands {

//! Routing units per site: each site's range of routing keys is cut into this many equal
//! sub-ranges (paper 002's sub-partitions), the grain at which PLP moves data between its
//! workers (exec/plp/plp_routing.hpp). Equal to atrapos::kSubPartitions.
inline constexpr std::uint32_t kUnitsPerSite = 10;

//! The routing unit of the key at `offset` (0 <= offset < per_site) of global site `site`,
//! whose range holds `per_site` keys. With units shared by every table (engine.plp_units =
//! shared_key: `tables` 1, `table` 0) that is site * kUnitsPerSite + the sub-range of the
//! offset. With `tables` tables routed apart (per_table), table `table`'s units of a site
//! follow one another: unit (site * tables + table) * kUnitsPerSite + the sub-range, so a
//! site's units stay one contiguous block and each (site, table) is one monitored partition.
inline std::uint64_t routing_unit(std::uint64_t site, std::uint64_t offset, std::uint64_t per_site,
                                  std::uint64_t table = 0, std::uint64_t tables = 1) {
  return (site * tables + table) * kUnitsPerSite + offset * kUnitsPerSite / per_site;
}

//! The global site of a routing unit (of `tables` tables routed apart, 1 when they share units).
inline std::uint64_t site_of_unit(std::uint64_t unit, std::uint64_t tables = 1) {
  return unit / kUnitsPerSite / tables;
}
//! The table (0 .. tables-1) of a routing unit of `tables` tables routed apart.
inline std::uint64_t table_of_unit(std::uint64_t unit, std::uint64_t tables) { return unit / kUnitsPerSite % tables; }

//! Whether workload W routes its tables apart when asked (engine.plp_units = per_table): it
//! has `routing_tables()` (1, or its table count under per_table) and `used_routing_tables()`
//! (a bit per table its mix touches).
template <class W, class = void>
struct HasRoutingTables : std::false_type {};
template <class W>
struct HasRoutingTables<W, std::void_t<decltype(std::declval<const W&>().routing_tables()),
                                       decltype(std::declval<const W&>().used_routing_tables())>> : std::true_type {};

//! The number of tables `workload` routes apart (1: its tables share units).
template <class W>
std::uint64_t routing_tables_of(const W& workload) {
  if constexpr (HasRoutingTables<W>::value) {
    return workload.routing_tables();
  } else {
    (void)workload;
    return 1;
  }
}
//! A bit per table `workload` routes apart that its transaction mix uses (1: the one table).
template <class W>
std::uint64_t used_routing_tables_of(const W& workload) {
  if constexpr (HasRoutingTables<W>::value) {
    return workload.used_routing_tables();
  } else {
    (void)workload;
    return 1;
  }
}

}  // namespace islands
