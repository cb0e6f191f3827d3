#pragma once
#include "islands/common/enum_names.hpp"

namespace islands {

//! What a PLP routing unit is (engine.plp_units), chosen at run time.
//! shared_key: every table's rows of one routing-key range (a site's tenth), owned together:
//! a transaction on one key never leaves its owner, whatever tables it touches.
//! per_table: each table's rows of one key range on their own (paper 002's partitioning:
//! every table range-partitioned by itself), so the routing table has tables x units entries
//! and a transaction over two tables meets two owners when they are placed apart. Only
//! workloads that say how their operations split by table support it (TATP); the others
//! refuse it with a ConfigError naming the setting.
enum class PlpUnitsKind { shared_key, per_table };

template <>
struct EnumNames<PlpUnitsKind> {
  static constexpr EnumName<PlpUnitsKind> table[] = {{PlpUnitsKind::shared_key, "shared_key"},
                                                     {PlpUnitsKind::per_table, "per_table"}};
};

}  // namespace islands
