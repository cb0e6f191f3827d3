#pragma once
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
//! `kind` names (every index is compiled into the one binary).
template <class F>
decltype(auto) with_index(IndexKind kind, F&& f) {
  switch (kind) {
    case IndexKind::btree:
      return f(IndexTag<BTreeIndex>{});
    case IndexKind::hash:
    default:
      return f(IndexTag<HashIndex>{});
  }
}

}  // namespace islands
