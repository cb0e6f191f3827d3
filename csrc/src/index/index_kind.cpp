#include "islands/index/index_kind.hpp"

#include <stdexcept>

namespace islands {

const char* index_kind_name(IndexKind kind) { return kind == IndexKind::hash ? "hash" : "btree"; }

IndexKind parse_index_kind(const std::string& name) {
  if (name == "hash") return IndexKind::hash;
  if (name == "btree") return IndexKind::btree;
  throw std::invalid_argument("index: unknown index '" + name + "' (choose hash or btree)");
}

}  // namespace islands
