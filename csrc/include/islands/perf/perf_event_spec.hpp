#pragma once
#include <cstdint>
#include <string>

namespace islands {

//! One counter to open with perf_event_open, already resolved to its raw encoding (Python's
//! islands.measure.pmu reads the kernel's sysfs event descriptions; the engine guesses nothing).
struct PerfEventSpec {
  std::string name;          //!< metric name reported back (e.g. "cycles", "imc_reads")
  std::uint32_t type = 0;    //!< perf_event_attr.type (PERF_TYPE_* or a PMU's sysfs type)
  std::uint64_t config = 0;  //!< perf_event_attr.config
  std::uint64_t config1 = 0; //!< perf_event_attr.config1 (offcore / extra fields)
  std::uint64_t config2 = 0; //!< perf_event_attr.config2
  int group = 0;             //!< events with the same group id are scheduled together
  int cpu = -1;              //!< -1: count the worker thread; >= 0: the whole CPU (uncore PMUs)
};

}  // namespace islands
