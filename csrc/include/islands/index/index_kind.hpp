#pragma once
#include <string>

namespace islands {

//! Which primary index a table uses; chosen at run time.
enum class IndexKind { hash, btree };

//! "hash" or "btree".
const char* index_kind_name(IndexKind kind);
//! Parses a name; throws std::invalid_argument listing the valid names.
IndexKind parse_index_kind(const std::string& name);

}  // namespace islands
