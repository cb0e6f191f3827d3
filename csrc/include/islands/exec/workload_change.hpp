#pragma once
#include <memory>
#include <mutex>
#include <atomic>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "islands/common/config_error.hpp"

namespace islands {

//! A change of a running workload's draw (ATraPos's run-time events, paper 002 Fig 10, 11,
//! 13): the fields given replace the workload's settings of the same name; the others stay.
//! The workload checks the result with the parsers and ranges of its settings (ConfigError
//! naming the field), so a change is refused exactly as the same value in a config would be.
struct WorkloadChange {
  std::optional<std::string> mix;     //!< the transaction mix (as the setting `mix` spells it)
  std::optional<double> hot_fraction;  //!< skew: the share of the data that is hot (0: off)
  std::optional<double> hot_share;     //!< skew: the share of the requests that go to it
};

//! Parameters a running workload's generators read between transactions and a controller
//! thread replaces: an atomic pointer to an immutable set. Readers load it (one acquire load,
//! no lock on the hot path); publish() installs a new set and keeps every old one alive until
//! this object goes (a run has a handful of changes), so a reader never sees one freed.
template <class P>
class LiveParams {
 public:
  explicit LiveParams(P initial) { publish(std::move(initial)); }

  //! The set in force now (valid for this object's life).
  const P& read() const noexcept { return *current_.load(std::memory_order_acquire); }

  //! Installs `next` for every later read().
  void publish(P next) {
    std::lock_guard<std::mutex> lock(mutex_);
    all_.push_back(std::make_unique<const P>(std::move(next)));
    current_.store(all_.back().get(), std::memory_order_release);
  }

 private:
  std::atomic<const P*> current_{nullptr};
  std::mutex mutex_;
  std::vector<std::unique_ptr<const P>> all_;
};

//! Whether workload type W can change its draw while it runs (has `change(WorkloadChange)`).
template <class W, class = void>
struct CanChange : std::false_type {};
template <class W>
struct CanChange<W, std::void_t<decltype(std::declval<W&>().change(std::declval<const WorkloadChange&>()))>>
    : std::true_type {};

//! Applies `change` to `workload`; ConfigError("workload", ...) for a workload whose draw
//! cannot change while it runs, or the workload's own for a value its settings refuse.
template <class W>
void change_workload(W& workload, const WorkloadChange& change) {
  if constexpr (CanChange<W>::value) {
    workload.change(change);
  } else {
    (void)workload;
    (void)change;
    throw ConfigError("workload", std::string(W::Config::kSection) + " cannot change its mix or skew while it runs (tatp can)");
  }
}

}  // namespace islands
