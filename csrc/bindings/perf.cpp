#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>

#include "islands/exec/fixed_run.hpp"
#include "islands/perf/component.hpp"
#include "islands/perf/counter_reading.hpp"
#include "islands/perf/perf_counters.hpp"
#include "islands/perf/simulator_marks.hpp"

namespace py = pybind11;
using namespace islands;

py::dict counter_reading_dict(const CounterReading& r) {
  py::dict d;
  d["name"] = r.name;
  d["value"] = r.value;
  d["raw"] = r.raw;
  d["time_enabled_ns"] = r.time_enabled;
  d["time_running_ns"] = r.time_running;
  d["running_fraction"] = r.running_fraction();
  d["error"] = r.error;
  return d;
}

void bind_perf(py::module_& m) {
  py::class_<PerfCounters>(m, "PerfCounters",
                           "perf_event_open counters of the calling thread (or of whole CPUs), in groups")
      .def(py::init([](const std::vector<PerfEventSpec>& events, bool whole_cpu) {
             return std::make_unique<PerfCounters>(events, whole_cpu ? CounterScope::cpu : CounterScope::thread);
           }),
           py::arg("events"), py::arg("whole_cpu") = false,
           "Opens the events of one scope (cpu == -1: this thread; cpu >= 0 with whole_cpu); a "
           "counter that cannot open reads NaN with its reason")
      .def("enable", &PerfCounters::enable, "Starts counting (and resets the counts)")
      .def("disable", &PerfCounters::disable, "Stops counting")
      .def("read", [](const PerfCounters& self) {
        py::list out;
        for (const CounterReading& r : self.read()) out.append(counter_reading_dict(r));
        return out;
      }, "One dict per event: value (multiplexing-corrected), raw, times, running_fraction, error");
  m.def("scale_count", &scale_count, py::arg("raw"), py::arg("time_enabled"), py::arg("time_running"),
        "The multiplexing correction: raw * enabled / running (NaN when it never ran)");
  m.def(
      "run_fixed_transactions",
      [](const RunConfig& config, std::uint64_t transactions, std::uint64_t warmup) {
        py::gil_scoped_release release;
        return run_fixed_transactions(config, transactions, warmup);
      },
      py::arg("config"), py::arg("transactions"), py::arg("warmup") = 0,
      "Loads the instance and runs exactly warmup + transactions committed transactions in this "
      "thread (for simulators: callgrind simulates from the end of the load, counts from the end "
      "of the warm-up); returns the aborted attempts of the counted ones");
  m.def("simulator_marks", [] { return kSimulatorMarks; },
        "Whether run_fixed_transactions carries callgrind's start/zero/stop marks (valgrind headers at build)");
  m.def("components", [] {
    py::list out;
    for (std::size_t i = 0; i < kNumComponents; ++i) out.append(component_name(static_cast<Component>(i)));
    return out;
  }, "The time-breakdown components, in the engine's order");
}
