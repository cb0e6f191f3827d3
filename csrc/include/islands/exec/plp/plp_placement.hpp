#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "islands/settings/plp_placement_kind.hpp"
#include "islands/exec/routing_unit.hpp"

namespace islands {

//! The first owner of every routing unit of a PLP instance (engine.plp_placement; see
//! PlpPlacementKind): `workers` workers over `sites` sites (worker i's home site i), `tables`
//! tables routed apart (units numbered (site * tables + table) * kUnitsPerSite + sub, from
//! the instance's first: exec/routing_unit.hpp), `used` a bit per table the mix uses,
//! `socket_of` each worker's socket (empty: one socket).
//!
//! A used table's units in key order are cut into `chunks` = max(1, workers / used tables)
//! equal runs. workload_aware gives table j's chunk i worker (j * chunks + i) mod workers
//! (table by table); atrapos worker number (i * used tables + j) mod workers of the workers
//! listed socket by socket, so a chunk's tables sit side by side on one socket when a socket
//! has a multiple of the used tables' count of workers. Unused tables and naive: site s's
//! units on worker s mod workers.
//!
//! `per_cpu` > 1 (engine.plp_workers_per_cpu: workers c * per_cpu ... c * per_cpu + per_cpu - 1
//! share CPU c, each with its site) with naive and tables routed apart: 002's oversaturated
//! naive, one partition of each table per CPU, each on a worker of its own: the j-th used
//! table's units of every site of CPU c on worker c * per_cpu + j mod per_cpu (two tables, two
//! workers per CPU: A's units of the CPU's sites on its first worker, B's on its second).
inline std::vector<std::uint32_t> plp_placement(PlpPlacementKind kind, std::size_t workers, std::size_t sites,
                                                std::size_t tables, std::uint64_t used,
                                                const std::vector<std::uint32_t>& socket_of, std::size_t per_cpu = 1) {
  std::vector<std::uint32_t> owner(sites * tables * kUnitsPerSite);
  for (std::size_t u = 0; u < owner.size(); ++u) owner[u] = static_cast<std::uint32_t>(site_of_unit(u, tables) % workers);
  std::vector<std::size_t> used_tables;
  for (std::size_t t = 0; t < tables; ++t) {
    if ((used >> t) & 1) used_tables.push_back(t);
  }
  if (kind == PlpPlacementKind::naive) {
    if (per_cpu <= 1 || tables <= 1 || workers % per_cpu != 0) return owner;
    for (std::size_t j = 0; j < used_tables.size(); ++j) {
      for (std::size_t site = 0; site < sites; ++site) {
        const std::size_t worker = (site % workers) / per_cpu * per_cpu + j % per_cpu;
        for (std::size_t sub = 0; sub < kUnitsPerSite; ++sub) {
          owner[(site * tables + used_tables[j]) * kUnitsPerSite + sub] = static_cast<std::uint32_t>(worker);
        }
      }
    }
    return owner;
  }
  if (used_tables.empty()) return owner;
  const std::size_t k = used_tables.size();
  const std::size_t chunks = std::max<std::size_t>(1, workers / k);
  std::vector<std::uint32_t> by_socket(workers);  // workers listed socket by socket
  std::iota(by_socket.begin(), by_socket.end(), 0u);
  if (socket_of.size() == workers) {
    std::stable_sort(by_socket.begin(), by_socket.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return socket_of[a] < socket_of[b]; });
  }
  const std::size_t per_table = sites * kUnitsPerSite;
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t x = 0; x < per_table; ++x) {  // the table's x-th unit in key order
      const std::size_t chunk = x * chunks / per_table;
      const std::size_t site = x / kUnitsPerSite, sub = x % kUnitsPerSite;
      const std::size_t unit = (site * tables + used_tables[j]) * kUnitsPerSite + sub;
      owner[unit] = kind == PlpPlacementKind::workload_aware
                        ? static_cast<std::uint32_t>((j * chunks + chunk) % workers)
                        : by_socket[(chunk * k + j) % workers];
    }
  }
  return owner;
}

}  // namespace islands
