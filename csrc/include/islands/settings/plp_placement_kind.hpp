#pragma once
#include "islands/common/enum_names.hpp"

namespace islands {

//! Where a PLP instance's routing units start (engine.plp_placement; paper 002 Fig 6's
//! placements), chosen at run time. With T tables whose rows the workload's mix uses, cut
//! into chunks of consecutive units (exec/plp/plp_placement.hpp):
//! naive: every table's units of site s on worker s (two tables: A_s and B_s on worker s, two
//! partitions per core); as PLP always started.
//! workload_aware: one partition per core, placed ignoring sockets: each used table's key
//! range cut into workers / T chunks, table by table on consecutive workers (A's chunks, then
//! B's), so a chunk of A and its dependent chunk of B may sit on different sockets.
//! atrapos: the same chunks, placed as ATraPos's cost model would (002 Sec V): dependent
//! chunks (A_i and B_i) on workers of one socket.
//! Tables the mix does not use stay where naive puts them. The last two need
//! engine.plp_units = per_table.
enum class PlpPlacementKind { naive, workload_aware, atrapos };

template <>
struct EnumNames<PlpPlacementKind> {
  static constexpr EnumName<PlpPlacementKind> table[] = {{PlpPlacementKind::naive, "naive"},
                                                         {PlpPlacementKind::workload_aware, "workload_aware"},
                                                         {PlpPlacementKind::atrapos, "atrapos"}};
};

}  // namespace islands
