#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace islands {

//! Test mode of a PLP instance (engine.record_history): checks that routing units are owned
//! exclusively. Between two hand-overs of a unit (PlpRouting::apply), the first worker that
//! touches it (runs an action on it, or applies a coordinator's decision to an action it holds
//! there: releases its locks, undoes its writes) claims it; any other worker touching it
//! before the next hand-over is a violation (two owners at once: a re-partitioning that did
//! not drain).
class PlpOwnershipCheck {
 public:
  //! A check over `units` units, none claimed.
  explicit PlpOwnershipCheck(std::size_t units) : claim_(new std::atomic<std::uint32_t>[units]), units_(units) {
    for (std::size_t u = 0; u < units; ++u) claim_[u].store(kNone, std::memory_order_relaxed);
  }

  //! Worker `worker` runs an action on unit `unit`: claims it if no one has since its last
  //! hand-over; throws std::logic_error naming both workers if another one has.
  void touch(std::size_t unit, std::uint32_t worker) {
    std::uint32_t expected = kNone;
    if (claim_[unit].compare_exchange_strong(expected, worker, std::memory_order_acq_rel) || expected == worker) return;
    throw std::logic_error("plp: unit " + std::to_string(unit) + " ran actions on workers " + std::to_string(expected) +
                           " and " + std::to_string(worker) + " between two hand-overs");
  }
  //! Unit `unit` was handed over (drained first): its next action may run anywhere.
  void handed_over(std::size_t unit) { claim_[unit].store(kNone, std::memory_order_release); }
  //! Number of units.
  std::size_t units() const noexcept { return units_; }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  std::unique_ptr<std::atomic<std::uint32_t>[]> claim_;
  std::size_t units_;
};

}  // namespace islands
