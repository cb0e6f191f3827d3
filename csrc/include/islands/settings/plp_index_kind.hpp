#pragma once
#include "islands/common/enum_names.hpp"
#include "islands/settings/execution_kind.hpp"

namespace islands {

//! The primary indexes' layout under PLP (engine.plp_index), chosen at run time; outside PLP
//! there is always one shared root, latched as engine.latching says.
//! per_unit: one root per routing unit (paper 002's multi-rooted B+tree / per-partition hash,
//! index/rooted_index.hpp), latch-free: only the unit's owner touches its root.
//! shared: one root for the whole instance, latched (the layout before per-unit roots; the
//! baseline benchmarks/plp_index_roots.py compares against).
enum class PlpIndexKind { per_unit, shared };

template <>
struct EnumNames<PlpIndexKind> {
  static constexpr EnumName<PlpIndexKind> table[] = {{PlpIndexKind::per_unit, "per_unit"},
                                                     {PlpIndexKind::shared, "shared"}};
};

//! Whether an instance of engine settings `E` keeps one latch-free index root per routing unit.
template <class E>
bool per_unit_index_roots(const E& engine) {
  return engine.execution == ExecutionKind::plp && engine.plp_index == PlpIndexKind::per_unit;
}

}  // namespace islands
