#pragma once
#include <vector>

#include "islands/perf/counter_reading.hpp"
#include "islands/perf/perf_event_spec.hpp"

namespace islands {

//! Which of a run's counters an object opens.
enum class CounterScope {
  thread,  //!< the specs with cpu == -1, counting the calling thread (open it in that thread)
  cpu,     //!< the specs with cpu >= 0, counting everything on that CPU (uncore PMUs)
};

//! A set of perf_event_open counters in groups, opened disabled. A counter that cannot be
//! opened (no PMU, permission, unknown event) is not an error: its reading is NaN with the
//! reason. Enable, disable and read are a few syscalls each, kept outside the hot loop.
class PerfCounters {
 public:
  PerfCounters() = default;
  //! Opens `scope`'s share of `events` (none when the list is empty).
  PerfCounters(const std::vector<PerfEventSpec>& events, CounterScope scope);
  ~PerfCounters();
  PerfCounters(const PerfCounters&) = delete;
  PerfCounters& operator=(const PerfCounters&) = delete;
  PerfCounters(PerfCounters&& other) noexcept;
  PerfCounters& operator=(PerfCounters&& other) noexcept;

  void enable();   //!< starts every group counting (time_enabled starts too)
  void disable();  //!< stops every group
  //! One reading per opened spec, in spec order, multiplexing-corrected.
  std::vector<CounterReading> read() const;
  bool empty() const { return slots_.empty(); }  //!< no spec of this scope

 private:
  struct Slot {
    PerfEventSpec spec;
    int fd = -1;           //!< -1 when it failed to open
    int leader = -1;       //!< index of its group's leader slot
    std::size_t index = 0; //!< position within the group's read buffer
    std::string error;
  };
  void close_all();
  std::vector<Slot> slots_;
};

}  // namespace islands
