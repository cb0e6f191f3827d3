#include "islands/index/index_kind.hpp"

#include "islands/common/config_error.hpp"

namespace islands {

const char* index_kind_name(IndexKind kind) {
  switch (kind) {
#define ISLANDS_INDEX_NAME(kind, name, Index) \
  case IndexKind::kind:                       \
    return name;
    ISLANDS_INDEXES(ISLANDS_INDEX_NAME)
#undef ISLANDS_INDEX_NAME
  }
  return "unknown";
}

IndexKind parse_index_kind(const std::string& name) {
  std::string names;
#define ISLANDS_INDEX_PARSE(kind, text, Index) \
  if (name == text) return IndexKind::kind;    \
  names += (names.empty() ? "" : ", ") + std::string(text);
  ISLANDS_INDEXES(ISLANDS_INDEX_PARSE)
#undef ISLANDS_INDEX_PARSE
  throw ConfigError("engine.index", "unknown index '" + name + "' (choose " + names + ")");
}

}  // namespace islands
