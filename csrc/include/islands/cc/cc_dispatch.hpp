#pragma once
#include "islands/cc/concurrency_control.hpp"
#include "islands/exec/engine_config.hpp"

namespace islands {

//! The one place the engine picks a concurrency-control scheme: calls f(scheme) with the
//! scheme `engine` names, so that everything f instantiates is specialised for it. Adding a
//! scheme: its struct (the interface of NoLocking and TwoPhaseLocking), its name in
//! cc_kind.cpp and a case here.
template <class F>
decltype(auto) with_cc(const EngineConfig& engine, F&& f) {
  switch (engine.cc) {
    case CcKind::none:
      return f(NoLocking{});
    case CcKind::two_pl:
    default:
      return f(TwoPhaseLocking{engine.lock_policy});
  }
}

}  // namespace islands
