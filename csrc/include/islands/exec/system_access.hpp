#pragma once
#include <cstdint>

#include "islands/common/cycle_clock.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/exec/system_structures.hpp"
#include "islands/txn/active_txn_list.hpp"

namespace islands {

//! One worker's use of its instance's system structures (exec/system_structures.hpp), on the
//! critical path of every transaction, in both the shared-everything and the PLP worker:
//! hold (the system-state lock shared, before the worker reads the run's phase), begin (its
//! transaction linked in the active list), end (unlinked, lock released) or release (no
//! transaction after all).
//!
//! Test mode (engine.test_count_cross_socket): every access to a part kept by another socket
//! than the worker's is counted (WorkerStats::cross_socket_accesses). An injected delay
//! (engine.cross_socket_delay_ns, for virtual topologies, whose sockets share the real caches)
//! is spent on each such access, counted or not.
class SystemAccess {
 public:
  //! Worker `worker`'s access to `structures`, counting into `*cross_socket` (null: not
  //! counted), spending `delay_ns` on each cross-socket access.
  SystemAccess(SystemStructures& structures, std::size_t worker, std::uint64_t* cross_socket, double delay_ns)
      : on_(structures.kind() != SystemStructuresKind::none),
        part_(structures.part_of(worker)),
        remote_(on_ && part_.socket != structures.socket_of(worker)),
        cross_socket_(remote_ ? cross_socket : nullptr),
        delay_ticks_(remote_ && delay_ns > 0 ? static_cast<std::uint64_t>(delay_ns / CycleClock::ns_per_tick()) + 1
                                              : 0) {}

  //! Whether this worker's part is kept by another socket (the centralized part, from a
  //! worker off socket 0).
  bool remote() const { return remote_; }

  //! Takes the system-state lock shared, calling `wait()` while a quiesce bars it (and
  //! yielding the CPU once that grows long: the holders the quiesce waits for may need it).
  template <class Wait>
  void hold(Wait wait) {
    if (!on_) return;
    Backoff backoff;
    for (;;) {
      touch();
      if (part_.lock.try_lock_shared()) return;
      wait();
      backoff.pause();
    }
  }
  //! Releases the shared hold (no transaction began under it).
  void release() {
    if (!on_) return;
    touch();
    part_.lock.unlock_shared();
  }
  //! Links this worker's transaction, begun at `begin_tick`, in the active list (under hold).
  void begin(std::uint64_t begin_tick) {
    if (!on_) return;
    touch();
    part_.active.add(entry_, begin_tick);
  }
  //! The transaction's outcome is decided: unlinked, and the shared hold released.
  void end() {
    if (!on_) return;
    touch();
    part_.active.remove(entry_);
    release();
  }

 private:
  // One access to the part: counted and delayed when it is another socket's.
  void touch() {
    if (!remote_) return;
    if (cross_socket_ != nullptr) ++*cross_socket_;
    if (delay_ticks_ != 0) {
      const std::uint64_t until = CycleClock::now() + delay_ticks_;
      while (CycleClock::now() < until) cpu_relax();
    }
  }

  bool on_;  // engine.system_structures is not none
  SystemPart& part_;
  bool remote_;
  std::uint64_t* cross_socket_;
  std::uint64_t delay_ticks_;
  ActiveTxn entry_;
};

}  // namespace islands
