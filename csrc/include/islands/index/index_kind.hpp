#pragma once
#include "islands/common/enum_names.hpp"

namespace islands {

//! The primary indexes, one line each: X(kind, "name", Index). The one list the enum, the
//! names, the settings' choices and the dispatch (with_index, index_dispatch.hpp) come from.
#define ISLANDS_INDEXES(X)       \
  X(hash, "hash", HashIndex)     \
  X(btree, "btree", BTreeIndex)

//! Which primary index a table uses; chosen at run time.
enum class IndexKind {
#define ISLANDS_INDEX_ENUM(kind, name, Index) kind,
  ISLANDS_INDEXES(ISLANDS_INDEX_ENUM)
#undef ISLANDS_INDEX_ENUM
};

template <>
struct EnumNames<IndexKind> {
#define ISLANDS_INDEX_NAME(kind, name, Index) {IndexKind::kind, name},
  static constexpr EnumName<IndexKind> table[] = {ISLANDS_INDEXES(ISLANDS_INDEX_NAME)};
#undef ISLANDS_INDEX_NAME
};

}  // namespace islands
