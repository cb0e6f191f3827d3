// The dispatchers (with_index, with_cc) against the build's variant set (common/variants.hpp):
// every build dispatches the default index and scheme to their types; a build with every
// variant dispatches each kind to its own type, and one without (the sanitizer test builds)
// refuses the others with a ConfigError naming the field, never running another variant.
#include <string>
#include <type_traits>

#include "check.hpp"
#include "islands/cc/cc_dispatch.hpp"
#include "islands/common/config_error.hpp"
#include "islands/common/variants.hpp"
#include "islands/index/index_dispatch.hpp"

using namespace islands;

namespace {

// The name of the index type with_index picked, "" when it refused the kind.
std::string index_picked(IndexKind kind) {
  try {
    return with_index(kind, [](auto tag) -> std::string {
      return std::is_same_v<typename decltype(tag)::type, HashIndex> ? "hash" : "btree";
    });
  } catch (const ConfigError& e) {
    CHECK(e.field() == "engine.index");
    return "";
  }
}

// Whether `Scheme` is the scheme ISLANDS_CC_SCHEMES lists for `kind`.
template <class Scheme>
constexpr bool is_scheme(const Scheme&, CcKind kind) {
  switch (kind) {
#define ISLANDS_CC_IS(k, name, S) \
  case CcKind::k:                 \
    return std::is_same_v<Scheme, S>;
    ISLANDS_CC_SCHEMES(ISLANDS_CC_IS)
#undef ISLANDS_CC_IS
  }
  return false;
}

int cc_picked(CcKind kind) {  // 1: the scheme of `kind`, 0: another one, -1: refused
  EngineConfig engine;
  engine.cc = kind;
  try {
    return with_cc(engine, [&](auto scheme) { return is_scheme(scheme, kind) ? 1 : 0; });
  } catch (const ConfigError& e) {
    CHECK(e.field() == "engine.cc");
    return -1;
  }
}

}  // namespace

int main() {
  CHECK(index_picked(IndexKind::hash) == "hash");
  CHECK(index_picked(IndexKind::btree) == (kAllVariants ? "btree" : ""));
  CHECK(cc_picked(CcKind::two_pl) == 1);
  for (CcKind kind : {CcKind::none, CcKind::table_2pl, CcKind::occ, CcKind::mvcc}) {
    CHECK(cc_picked(kind) == (kAllVariants ? 1 : -1));
  }
  return test_summary(kAllVariants ? "test_variant_dispatch (every variant)"
                                   : "test_variant_dispatch (ISLANDS_ALL_VARIANTS off)");
}
