#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace islands {

//! The multiplexing correction: a counter that ran `running` of the `enabled` nanoseconds is
//! extrapolated to the whole window (raw * enabled / running). NaN when it never ran.
inline double scale_count(std::uint64_t raw, std::uint64_t enabled, std::uint64_t running) {
  if (running == 0) return std::numeric_limits<double>::quiet_NaN();
  if (running >= enabled) return static_cast<double>(raw);
  return static_cast<double>(raw) * (static_cast<double>(enabled) / static_cast<double>(running));
}

//! One counter's value over a measured window.
struct CounterReading {
  std::string name;                 //!< metric name from its PerfEventSpec
  double value = std::numeric_limits<double>::quiet_NaN();  //!< scaled count; NaN if missing
  std::uint64_t raw = 0;            //!< count while it was scheduled on the PMU
  std::uint64_t time_enabled = 0;   //!< ns the counter was enabled
  std::uint64_t time_running = 0;   //!< ns it was actually counting (less when multiplexed)
  std::string error;                //!< why it is missing ("" when it counted)

  //! Fraction of the window the counter ran: 1 = not multiplexed; NaN when it never ran.
  double running_fraction() const {
    if (time_enabled == 0) return std::numeric_limits<double>::quiet_NaN();
    return static_cast<double>(time_running) / static_cast<double>(time_enabled);
  }
};

}  // namespace islands
