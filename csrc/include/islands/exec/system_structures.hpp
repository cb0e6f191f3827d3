#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "islands/common/spin_latch.hpp"
#include "islands/settings/system_structures_kind.hpp"
#include "islands/txn/active_txn_list.hpp"
#include "islands/txn/system_state_lock.hpp"

namespace islands {

//! One part of the system structures: a system-state lock word and an active-transaction list,
//! kept by one socket.
struct SystemPart {
  SystemStateLock lock;     //!< this part's lock word
  ActiveTxnList active;     //!< this part's transactions
  std::uint32_t socket = 0; //!< the socket that keeps it
};

//! An instance's system structures (engine.system_structures, paper 002 Sec IV): the
//! system-state lock and the list of active transactions, centralized (one part, kept by the
//! first socket, socket 0) or per socket (one part per socket that has a worker), or none. Workers use
//! them through a SystemAccess each (exec/system_access.hpp); the instance's run thread takes
//! the lock exclusively (quiesce, every part) and reads the lists (active, oldest_begin).
class SystemStructures {
 public:
  //! The structures for workers on `worker_sockets` (worker i's socket in the topology the run
  //! was planned on, real or virtual; empty: every worker on socket 0), laid out as `kind`.
  SystemStructures(SystemStructuresKind kind, std::vector<std::uint32_t> worker_sockets)
      : kind_(kind), worker_sockets_(std::move(worker_sockets)) {
    std::uint32_t sockets = 1;
    if (kind == SystemStructuresKind::per_socket) {
      for (std::uint32_t s : worker_sockets_) sockets = std::max(sockets, s + 1);
    }
    for (std::uint32_t s = 0; s < sockets; ++s) {
      parts_.push_back(std::make_unique<SystemPart>());
      parts_.back()->socket = s;
    }
  }

  //! The layout.
  SystemStructuresKind kind() const { return kind_; }
  //! How many parts (1 when centralized).
  std::size_t parts() const { return parts_.size(); }
  //! Worker `worker`'s socket.
  std::uint32_t socket_of(std::size_t worker) const {
    return worker < worker_sockets_.size() ? worker_sockets_[worker] : 0;
  }
  //! The part worker `worker` uses: its socket's (per socket) or the one part (centralized;
  //! none: a part nobody takes).
  SystemPart& part_of(std::size_t worker) {
    return kind_ == SystemStructuresKind::per_socket ? *parts_[socket_of(worker)] : *parts_[0];
  }

  //! Takes the system-state lock exclusively: every part's barrier raised, in socket order,
  //! then every part drained (no transaction runs anywhere). Gives up when `give_up()` turns
  //! true while waiting (a worker failed holding it): then false, the barriers still up
  //! (resume lowers them either way).
  template <class GiveUp>
  bool quiesce(GiveUp give_up) {
    if (kind_ == SystemStructuresKind::none) return true;  // no worker holds anything
    for (auto& part : parts_) part->lock.bar();
    for (auto& part : parts_) {
      Backoff backoff;
      while (!part->lock.drained()) {
        if (give_up()) return false;
        backoff.pause();
      }
    }
    return true;
  }
  //! Releases what quiesce took.
  void resume() {
    for (auto& part : parts_) part->lock.unbar();
  }

  //! Transactions active now, over every part.
  std::size_t active() {
    std::size_t n = 0;
    for (auto& part : parts_) n += part->active.size();
    return n;
  }
  //! The earliest begin tick of the transactions active now, over every part
  //! (ActiveTxnList::kNone: none).
  std::uint64_t oldest_begin() {
    std::uint64_t oldest = ActiveTxnList::kNone;
    for (auto& part : parts_) oldest = std::min(oldest, part->active.oldest_begin());
    return oldest;
  }

 private:
  SystemStructuresKind kind_;
  std::vector<std::uint32_t> worker_sockets_;
  std::vector<std::unique_ptr<SystemPart>> parts_;  // each on its own cache lines
};

}  // namespace islands
