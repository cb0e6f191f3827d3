#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "islands/common/abort_reason.hpp"

namespace islands {

//! One action of a PLP transaction (exec/plp/plp_worker.hpp): the workload's operations on one
//! partition, run by that partition's owner for the coordinator. The coordinator keeps one per
//! partition and reuses it transaction after transaction: it posts the words, sends a message
//! pointing here, and waits at the rendezvous for the outcome; the owner runs the words, fills
//! in what it must return (its redo, a failure's reason) and publishes the outcome last
//! (release), after which it never touches the action again. One process: the words are read
//! where the coordinator keeps them, no copy.
//!
//! Stages (exec/plp/plp_stages.hpp): in a transaction whose operations exchange data, the
//! coordinator also posts the action's input (the records the first stage's actions produced,
//! read where it keeps them) and whether to produce output; the owner returns what its
//! operations produced in `out`, as it returns its redo.
struct alignas(64) PlpAction {
  //! Where the action stands: pending until the owner publishes how it ended.
  enum Outcome : std::uint32_t { kPending = 0, kDone = 1, kAborted = 2, kRolledBack = 3 };

  const std::uint64_t* words = nullptr;  //!< coordinator: the operations (valid until the outcome)
  std::size_t n = 0;                     //!< coordinator: how many words
  AbortReason reason = AbortReason::lock_conflict;  //!< owner: why it aborted
  std::vector<unsigned char> redo;       //!< owner: its after-images when the log is on (redo_entry.hpp)
  std::atomic<std::uint32_t> outcome{kPending};  //!< owner publishes, coordinator polls
  // Stages only (post_stage); a one-stage action leaves them alone.
  const std::uint64_t* in = nullptr;     //!< coordinator: the input records (valid until the outcome)
  std::size_t in_words = 0;              //!< coordinator: words at `in`
  bool wants_out = false;                //!< coordinator: a later stage consumes what this one produces
  std::vector<std::uint64_t> out;        //!< owner: the records its operations produced
  std::uint64_t produced = 0;            //!< owner: records in `out`
  std::uint64_t consumed = 0;            //!< owner: records of the input its operations used

  //! Coordinator: a new action of `words` (kept unchanged until the outcome is published).
  void post(const std::vector<std::uint64_t>& operations) {
    words = operations.data();
    n = operations.size();
    redo.clear();
    outcome.store(kPending, std::memory_order_relaxed);
  }
  //! Coordinator: a new action of a staged transaction: its operations, its input (`in_n`
  //! words at `input`, kept unchanged until the outcome; nullptr: none) and whether it must
  //! return what it produces.
  void post_stage(const std::vector<std::uint64_t>& operations, const std::uint64_t* input, std::size_t in_n,
                  bool output) {
    in = input;
    in_words = in_n;
    wants_out = output;
    post(operations);
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
