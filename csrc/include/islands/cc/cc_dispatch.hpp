#pragma once
#include <stdexcept>

#include "islands/settings/cc_kind.hpp"
#include "islands/cc/concurrency_control.hpp"
#include "islands/cc/multi_version_cc.hpp"
#include "islands/cc/optimistic_cc.hpp"
#include "islands/settings/engine_config.hpp"

namespace islands {

//! The one place the engine picks a concurrency-control scheme: calls f(scheme) with the
//! scheme `engine` names (ISLANDS_CC_SCHEMES, set up by its configured(engine)), so that
//! everything f instantiates is specialised for it.
template <class F>
decltype(auto) with_cc(const EngineConfig& engine, F&& f) {
  switch (engine.cc) {
#define ISLANDS_CC_CASE(kind, name, Scheme) \
  case CcKind::kind:                        \
    return f(Scheme::configured(engine));
    ISLANDS_CC_SCHEMES(ISLANDS_CC_CASE)
#undef ISLANDS_CC_CASE
  }
  throw std::logic_error("engine.cc: a scheme outside ISLANDS_CC_SCHEMES");
}

}  // namespace islands
