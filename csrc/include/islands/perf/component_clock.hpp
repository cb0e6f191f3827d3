#pragma once
#include <array>
#include <cstdint>

#include "islands/common/cycle_clock.hpp"
#include "islands/perf/component.hpp"

namespace islands {

//! Time per component of one worker, by switching: the elapsed ticks since the last switch go
//! to the component that was running, so the parts always add up to the timed span. Two TSC
//! reads per switch, no allocation. Hot code marks itself with ComponentScope, which costs a
//! null check when the breakdown is off.
class ComponentClock {
 public:
  //! Starts timing a span in `component`.
  void start(Component component = Component::management) {
    current_ = component;
    last_ = CycleClock::now();
  }
  //! Charges the ticks since the last switch to the current component and moves to `next`.
  void switch_to(Component next) {
    const std::uint64_t now = CycleClock::now();
    ticks_[static_cast<std::size_t>(current_)] += now - last_;
    last_ = now;
    current_ = next;
  }
  //! Starts a span right where the last one stopped, charging the step between the two (the
  //! driver's loop) to management: spans timed back to back cover all of the time.
  void resume() {
    current_ = Component::management;
    switch_to(Component::management);
  }
  //! Ends the span (charging its tail) and counts it.
  void stop() {
    switch_to(current_);
    ++spans_;
  }
  Component current() const { return current_; }  //!< the component being charged
  const std::array<std::uint64_t, kNumComponents>& ticks() const { return ticks_; }  //!< per component
  std::uint64_t spans() const { return spans_; }  //!< spans timed

 private:
  std::array<std::uint64_t, kNumComponents> ticks_{};
  std::uint64_t last_ = 0;
  std::uint64_t spans_ = 0;
  Component current_ = Component::management;
};

//! Charges the enclosing block to `component`, then returns to what ran before. A null clock
//! (breakdown off, or a transaction not sampled) does nothing.
class ComponentScope {
 public:
  ComponentScope(ComponentClock* clock, Component component) : clock_(clock) {
    if (clock_) {
      previous_ = clock_->current();
      clock_->switch_to(component);
    }
  }
  ~ComponentScope() {
    if (clock_) clock_->switch_to(previous_);
  }
  ComponentScope(const ComponentScope&) = delete;
  ComponentScope& operator=(const ComponentScope&) = delete;

 private:
  ComponentClock* clock_;
  Component previous_ = Component::management;
};

}  // namespace islands
