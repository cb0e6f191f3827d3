#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "islands/common/check.hpp"
#include "islands/exec/plp/plp_routing.hpp"

namespace islands {

//! One transaction a PLP worker drew and handed, whole, to the owner of its home unit
//! (engine.plp_handoff; exec/plp/plp_worker.hpp). It lives in the drawer's memory: the drawer
//! writes it before the hand-off message and does not touch it again until the owner's
//! handoff_done message comes back (the bus's rings order both); the owner reads it, and
//! coordinates it as if it had drawn it, in between.
template <class Txn>
struct PlpHandedTxn {
  Txn txn;                  //!< the transaction as the workload drew it
  std::uint64_t drawn = 0;  //!< cycle clock when the drawer drew it (its latency starts there)
  std::uint32_t drawer = 0; //!< the drawer's worker number (where handoff_done goes)
};

//! A drawer's window of hand-offs: at most `window` of its transactions handed to other
//! workers and not yet finished (a closed loop of `window` clients beside the one whose
//! transactions it coordinates itself). Slots never move (fixed at construction), so a
//! message can point at one.
template <class Txn>
class PlpHandoffWindow {
 public:
  //! `window` slots of worker `drawer` (0: hand-off off, the window is always full).
  PlpHandoffWindow(std::size_t window, std::uint32_t drawer) : slots_(window) {
    free_.reserve(window);
    for (std::size_t i = window; i > 0; --i) {
      slots_[i - 1].drawer = drawer;
      free_.push_back(&slots_[i - 1]);
    }
  }

  //! The window's size.
  std::size_t size() const noexcept { return slots_.size(); }
  //! Handed transactions not yet finished.
  std::size_t outstanding() const noexcept { return slots_.size() - free_.size(); }
  //! Whether no slot is free (a transaction to hand off must wait).
  bool full() const noexcept { return free_.empty(); }

  //! A free slot, now outstanding (not full()).
  PlpHandedTxn<Txn>* acquire() {
    ISLANDS_CHECK(!free_.empty(), "plp hand-off: no free slot");
    PlpHandedTxn<Txn>* slot = free_.back();
    free_.pop_back();
    return slot;
  }

  //! The owner finished the transaction in `slot` (one of this window's, outstanding).
  void release(void* slot) {
    auto* mine = static_cast<PlpHandedTxn<Txn>*>(slot);
    ISLANDS_CHECK(!slots_.empty() && mine >= slots_.data() && mine < slots_.data() + slots_.size(),
                  "plp hand-off: a slot of another worker came back");
    for (const PlpHandedTxn<Txn>* f : free_) ISLANDS_CHECK(f != mine, "plp hand-off: a slot came back twice");
    free_.push_back(mine);
  }

 private:
  std::vector<PlpHandedTxn<Txn>> slots_;
  std::vector<PlpHandedTxn<Txn>*> free_;
};

//! An owner's queue of transactions handed to it, in arrival order, and whose turn is next:
//! handed transactions go before the owner's own draw, at most `limit` in a row (then its own
//! client draws one), except while its own draw is blocked (its window full), when it takes
//! every handed one: so neither its own client nor the drawers starve. The queue holds at most
//! `capacity` (every peer's whole window); more is a broken protocol.
template <class Txn>
class PlpHandoffInbox {
 public:
  //! Room for `capacity` handed transactions; at most `limit` (at least 1) in a row.
  PlpHandoffInbox(std::size_t capacity, std::size_t limit)
      : ring_(capacity == 0 ? 1 : capacity), limit_(limit == 0 ? 1 : limit) {}

  //! Handed transactions waiting.
  std::size_t size() const noexcept { return count_; }
  //! Whether none waits.
  bool empty() const noexcept { return count_ == 0; }

  //! A transaction handed to this worker (from the bus).
  void push(PlpHandedTxn<Txn>* slot) {
    ISLANDS_CHECK(count_ < ring_.size(), "plp hand-off: more handed transactions than the windows hold");
    ring_[(head_ + count_) % ring_.size()] = slot;
    ++count_;
  }

  //! The handed transaction to coordinate next, or nullptr when the owner's own draw goes
  //! next (none waits, or `limit` went in a row and `own_blocked` is false).
  PlpHandedTxn<Txn>* next(bool own_blocked) {
    if (count_ == 0 || (in_a_row_ >= limit_ && !own_blocked)) {
      in_a_row_ = 0;
      return nullptr;
    }
    ++in_a_row_;
    return pop();
  }

  //! The oldest waiting transaction, taken out (not empty()); the turn count unchanged.
  PlpHandedTxn<Txn>* pop() {
    ISLANDS_CHECK(count_ > 0, "plp hand-off: nothing handed");
    PlpHandedTxn<Txn>* slot = ring_[head_];
    head_ = (head_ + 1) % ring_.size();
    --count_;
    return slot;
  }

 private:
  std::vector<PlpHandedTxn<Txn>*> ring_;
  std::size_t head_ = 0, count_ = 0;
  std::size_t limit_;
  std::size_t in_a_row_ = 0;
};

//! The worker that coordinates `words` when it is handed off: the owner of the unit of its
//! first operation under `route` (a transaction on one unit then runs whole at that unit's
//! owner, with no action sent), kFrozen while that unit is being moved. `first_unit`: the
//! instance's first unit; `words` not empty.
template <class Workload>
std::uint32_t handoff_home(const Workload& workload, const std::vector<std::uint64_t>& words, const PlpRoute& route,
                           std::uint64_t first_unit) {
  const std::pair<std::size_t, std::uint64_t> op = workload.locate(words.data(), words.size(), 0);
  return route.owner[op.second - first_unit];
}

}  // namespace islands
