#pragma once
#include <string>

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

//! "hash", "btree", ...
const char* index_kind_name(IndexKind kind);
//! Parses a name; throws ConfigError("engine.index") listing the valid names.
IndexKind parse_index_kind(const std::string& name);

}  // namespace islands
