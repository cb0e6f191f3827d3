#pragma once
#include "islands/common/enum_names.hpp"

namespace islands {

//! How an instance lays out its system structures (engine.system_structures): the list of
//! active transactions and the system-state read/write lock (paper 002 Sec IV).
//! none: no such structures (the default: the other studies measure the engine without them;
//! a phase change is then a plain store, and a transaction may straddle it).
//! centralized: one list and one lock word shared by every worker, kept by the first socket
//! (Shore-MT's layout; every transaction's begin and end write the same cache lines).
//! per_socket: one list and one lock word per socket; a worker uses its own socket's part only,
//! and whoever takes the lock exclusively takes every socket's part (ATraPos's hardware-aware
//! layout: the critical path touches no other socket's memory).
enum class SystemStructuresKind { none, centralized, per_socket };

template <>
struct EnumNames<SystemStructuresKind> {
  static constexpr EnumName<SystemStructuresKind> table[] = {{SystemStructuresKind::none, "none"},
                                                             {SystemStructuresKind::centralized, "centralized"},
                                                             {SystemStructuresKind::per_socket, "per_socket"}};
};

}  // namespace islands
