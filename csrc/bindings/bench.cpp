// Hardware microbenchmarks (paper 000, Sec 3-4): messaging mechanisms and lock-protected
// counters. One coarse call per run; the GIL is released for all of it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "islands/bench/bench_errors.hpp"
#include "islands/bench/counter_bench.hpp"
#include "islands/bench/ipc_bench.hpp"

namespace py = pybind11;
using namespace islands;

namespace {

py::dict round_trip_dict(const LatencyHistogram& h) {
  py::dict d;
  d["count"] = h.count();
  d["mean_ns"] = h.mean();
  d["min_ns"] = h.quantile(0.0);
  d["p50_ns"] = h.quantile(0.50);
  d["p99_ns"] = h.quantile(0.99);
  d["p999_ns"] = h.quantile(0.999);
  d["max_ns"] = h.quantile(1.0);
  return d;
}

}  // namespace

void bind_bench(py::module_& m) {
  // Both derive from RuntimeError: a missing capability becomes a warning and a NaN row in
  // Python; a corrupted message fails the run.
  py::register_exception<CapabilityMissing>(m, "CapabilityMissing", PyExc_RuntimeError);
  py::register_exception<IntegrityError>(m, "IntegrityError", PyExc_RuntimeError);

  m.def("ipc_mechanisms", [] {
    std::vector<std::string> names;
    for (IpcMechanism k : all_ipc_mechanisms()) names.emplace_back(ipc_mechanism_name(k));
    return names;
  }, "Names of the messaging mechanisms the IPC benchmark compares, in figure order.");
  m.def("lock_kinds", [] {
    std::vector<std::string> names;
    for (LockKind k : all_lock_kinds()) names.emplace_back(lock_kind_name(k));
    return names;
  }, "Names of the counter benchmark's lock kinds, in figure order.");

  py::class_<IpcBenchConfig>(m, "IpcBenchConfig", "One ping-pong run between two pinned processes")
      .def(py::init<>())
      .def_property(
          "mechanism", [](const IpcBenchConfig& c) { return ipc_mechanism_name(c.mechanism); },
          [](IpcBenchConfig& c, const std::string& v) { c.mechanism = parse_ipc_mechanism(v); })
      .def_readwrite("client_cpu", &IpcBenchConfig::client_cpu)
      .def_readwrite("server_cpu", &IpcBenchConfig::server_cpu)
      .def_readwrite("message_bytes", &IpcBenchConfig::message_bytes)
      .def_readwrite("warmup_s", &IpcBenchConfig::warmup_s)
      .def_readwrite("duration_s", &IpcBenchConfig::duration_s)
      .def_readwrite("round_trips", &IpcBenchConfig::round_trips)
      .def_readwrite("seed", &IpcBenchConfig::seed)
      .def_readwrite("timeout_s", &IpcBenchConfig::timeout_s)
      .def_readwrite("inject_corruption", &IpcBenchConfig::inject_corruption)
      .def("validate", &IpcBenchConfig::validate, "Raises ValueError naming the first bad field");

  m.def(
      "run_ipc_bench",
      [](const IpcBenchConfig& config) {
        IpcBenchResult r;
        {
          py::gil_scoped_release release;
          r = run_ipc_bench(config);
        }
        py::dict d;
        d["round_trips"] = r.round_trips;
        d["total_round_trips"] = r.total_round_trips;
        d["server_verified"] = r.server_verified;
        d["measured_s"] = r.measured_s;
        d["round_trips_per_s"] = r.round_trips_per_s();
        d["messages_per_s"] = r.messages_per_s();
        d["round_trip"] = round_trip_dict(r.round_trip);
        d["client_cpu_seen"] = r.client_cpu_seen;
        d["server_cpu_seen"] = r.server_cpu_seen;
        return d;
      },
      py::arg("config"),
      "Forks the server, runs the ping-pong (every message verified by its receiver) and returns "
      "the measurements as a dict.");

  py::class_<CounterBenchConfig>(m, "CounterBenchConfig", "Threads incrementing lock-protected counters")
      .def(py::init<>())
      .def_property(
          "lock", [](const CounterBenchConfig& c) { return lock_kind_name(c.lock); },
          [](CounterBenchConfig& c, const std::string& v) { c.lock = parse_lock_kind(v); })
      .def_readwrite("cpus", &CounterBenchConfig::cpus)
      .def_readwrite("counter_of", &CounterBenchConfig::counter_of)
      .def_readwrite("warmup_s", &CounterBenchConfig::warmup_s)
      .def_readwrite("duration_s", &CounterBenchConfig::duration_s)
      .def_readwrite("increments_per_thread", &CounterBenchConfig::increments_per_thread)
      .def("validate", &CounterBenchConfig::validate, "Raises ValueError naming the first bad field");

  m.def(
      "run_counter_bench",
      [](const CounterBenchConfig& config) {
        CounterBenchResult r;
        {
          py::gil_scoped_release release;
          r = run_counter_bench(config);
        }
        py::dict d;
        d["measured_increments"] = r.measured_increments;
        d["total_increments"] = r.total_increments;
        d["cpu_seen"] = r.cpu_seen;
        d["cpu_s"] = r.cpu_s;
        d["cpu_share"] = r.cpu_share();
        d["counter_values"] = r.counter_values;
        d["expected_values"] = r.expected_values;
        d["measured_s"] = r.measured_s;
        d["increments"] = r.measured();
        d["increments_per_s"] = r.increments_per_s();
        d["consistent"] = r.consistent();
        return d;
      },
      py::arg("config"),
      "Runs the threads and returns per-thread increments, final counter values and the increments "
      "each counter received, as a dict.");
}
