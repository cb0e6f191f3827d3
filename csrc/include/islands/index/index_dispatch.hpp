#pragma once
#include <stdexcept>

#include "islands/index/btree_index.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/index/index_kind.hpp"

namespace islands {

//! Names an index type for with_index's callback.
template <class I>
struct IndexTag {
  using type = I;
};

//! The one place the engine picks a primary index: calls f(IndexTag<I>{}) for the index
//! `kind` names (ISLANDS_INDEXES; every index is compiled into the one binary).
template <class F>
decltype(auto) with_index(IndexKind kind, F&& f) {
  switch (kind) {
#define ISLANDS_INDEX_CASE(kind, name, Index) \
  case IndexKind::kind:                       \
    return f(IndexTag<Index>{});
    ISLANDS_INDEXES(ISLANDS_INDEX_CASE)
#undef ISLANDS_INDEX_CASE
  }
  throw std::logic_error("engine.index: an index outside ISLANDS_INDEXES");
}

}  // namespace islands
