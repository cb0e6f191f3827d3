#pragma once
#include <stdexcept>
#include <string>

#include "islands/common/config_error.hpp"
#include "islands/common/variants.hpp"
#include "islands/index/btree_index.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/index/index_kind.hpp"

namespace islands {

//! Names an index type for with_index's callback.
template <class I>
struct IndexTag {
  using type = I;
};

//! The index a build without every variant compiles (common/variants.hpp): the default one.
inline constexpr IndexKind kOnlyIndex = IndexKind::hash;

//! The one place the engine picks a primary index: calls f(IndexTag<I>{}) for the index
//! `kind` names (ISLANDS_INDEXES; every index is compiled into the one binary, except in the
//! sanitizer test builds: kAllVariants).
template <class F>
decltype(auto) with_index(IndexKind kind, F&& f) {
  switch (kind) {
#define ISLANDS_INDEX_CASE(kind, name, Index)                   \
  case IndexKind::kind:                                         \
    if constexpr (kAllVariants || IndexKind::kind == kOnlyIndex) { \
      return f(IndexTag<Index>{});                              \
    }                                                           \
    break;
    ISLANDS_INDEXES(ISLANDS_INDEX_CASE)
#undef ISLANDS_INDEX_CASE
  }
  if (!kAllVariants) {
    throw ConfigError("engine.index", std::string(enum_name(kind)) + " is not compiled into this build "
                                      "(ISLANDS_ALL_VARIANTS off, the sanitizer test builds: hash only)");
  }
  throw std::logic_error("engine.index: an index outside ISLANDS_INDEXES");
}

}  // namespace islands
