#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "islands/common/abort_reason.hpp"

namespace islands {

//! One action of a PLP transaction (exec/plp_worker.hpp): the workload's operations on one
//! partition, run by that partition's owner for the coordinator. The coordinator keeps one per
//! partition and reuses it transaction after transaction: it posts the words, sends a message
//! pointing here, and waits at the rendezvous for the outcome; the owner runs the words, fills
//! in what it must return (its redo, a failure's reason) and publishes the outcome last
//! (release), after which it never touches the action again. One process: the words are read
//! where the coordinator keeps them, no copy.
struct alignas(64) PlpAction {
  //! Where the action stands: pending until the owner publishes how it ended.
  enum Outcome : std::uint32_t { kPending = 0, kDone = 1, kAborted = 2, kRolledBack = 3 };

  const std::uint64_t* words = nullptr;  //!< coordinator: the operations (valid until the outcome)
  std::size_t n = 0;                     //!< coordinator: how many words
  AbortReason reason = AbortReason::lock_conflict;  //!< owner: why it aborted
  std::vector<unsigned char> redo;       //!< owner: its after-images when the log is on (redo_entry.hpp)
  std::atomic<std::uint32_t> outcome{kPending};  //!< owner publishes, coordinator polls

  //! Coordinator: a new action of `words` (kept unchanged until the outcome is published).
  void post(const std::vector<std::uint64_t>& operations) {
    words = operations.data();
    n = operations.size();
    redo.clear();
    outcome.store(kPending, std::memory_order_relaxed);
  }
  //! Owner: publishes how the action ended (everything it wrote before is visible with it).
  void publish(Outcome how) { outcome.store(how, std::memory_order_release); }
  //! Coordinator: the outcome once published, else kPending.
  Outcome poll() const { return static_cast<Outcome>(outcome.load(std::memory_order_acquire)); }
  //! Coordinator: a failed action's result (abort with its reason, or the user's rollback).
  TxnResult failure() const {
    return poll() == kRolledBack ? TxnResult::rollback() : TxnResult::abort(reason);
  }
};

}  // namespace islands
