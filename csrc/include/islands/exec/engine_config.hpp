#pragma once
#include "islands/cc/cc_kind.hpp"
#include "islands/index/index_kind.hpp"

namespace islands {

//! How one engine instance is built: index, concurrency control, latching.
struct EngineConfig {
  IndexKind index = IndexKind::hash;                //!< primary index structure
  CcKind cc = CcKind::two_pl;                       //!< concurrency control
  LockPolicy lock_policy = LockPolicy::wait_die;    //!< 2PL conflict policy
  bool latching = true;                             //!< latch index operations during the run
  bool prefetch = true;                             //!< prefetch a transaction's index slots and rows ahead
};

}  // namespace islands
