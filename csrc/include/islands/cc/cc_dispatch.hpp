#pragma once
#include <stdexcept>
#include <string>

#include "islands/cc/concurrency_control.hpp"
#include "islands/cc/multi_version_cc.hpp"
#include "islands/cc/optimistic_cc.hpp"
#include "islands/common/config_error.hpp"
#include "islands/common/variants.hpp"
#include "islands/settings/cc_kind.hpp"
#include "islands/settings/engine_config.hpp"

namespace islands {

//! The scheme a build without every variant compiles (common/variants.hpp): the default one.
inline constexpr CcKind kOnlyCc = CcKind::two_pl;
static_assert(EngineConfig{}.cc == kOnlyCc, "kOnlyCc: the default engine.cc");

//! The one place the engine picks a concurrency-control scheme: calls f(scheme) with the
//! scheme `engine` names (ISLANDS_CC_SCHEMES, set up by its configured(engine)), so that
//! everything f instantiates is specialised for it. Every scheme is compiled in, except in
//! the sanitizer test builds (kAllVariants).
template <class F>
decltype(auto) with_cc(const EngineConfig& engine, F&& f) {
  switch (engine.cc) {
#define ISLANDS_CC_CASE(kind, name, Scheme)                \
  case CcKind::kind:                                       \
    if constexpr (kAllVariants || CcKind::kind == kOnlyCc) { \
      return f(Scheme::configured(engine));                \
    }                                                      \
    break;
    ISLANDS_CC_SCHEMES(ISLANDS_CC_CASE)
#undef ISLANDS_CC_CASE
  }
  if (!kAllVariants) {
    throw ConfigError("engine.cc", std::string(enum_name(engine.cc)) + " is not compiled into this build "
                                   "(ISLANDS_ALL_VARIANTS off, the sanitizer test builds: 2pl only)");
  }
  throw std::logic_error("engine.cc: a scheme outside ISLANDS_CC_SCHEMES");
}

}  // namespace islands
