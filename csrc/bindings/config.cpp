#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "islands/exec/run_config.hpp"

namespace py = pybind11;
using namespace islands;

void bind_config(py::module_& m) {
  py::class_<MicroConfig>(m, "MicroConfig", "Microbenchmark parameters (paper 000, Sec 3.2)")
      .def(py::init<>())
      .def_readwrite("rows_per_site", &MicroConfig::rows_per_site)
      .def_readwrite("columns", &MicroConfig::columns)
      .def_readwrite("rows_per_txn", &MicroConfig::rows_per_txn)
      .def_readwrite("update", &MicroConfig::update)
      .def_readwrite("multisite", &MicroConfig::multisite)
      .def_readwrite("zipf_s", &MicroConfig::zipf_s);

  // Enums cross the boundary as their names; parsing them is the validation.
  py::class_<EngineConfig>(m, "EngineConfig", "Index, concurrency control and latching")
      .def(py::init<>())
      .def_property(
          "index", [](const EngineConfig& c) { return index_kind_name(c.index); },
          [](EngineConfig& c, const std::string& v) { c.index = parse_index_kind(v); })
      .def_property(
          "cc", [](const EngineConfig& c) { return cc_kind_name(c.cc); },
          [](EngineConfig& c, const std::string& v) { c.cc = parse_cc_kind(v); })
      .def_property(
          "lock_policy", [](const EngineConfig& c) { return lock_policy_name(c.lock_policy); },
          [](EngineConfig& c, const std::string& v) { c.lock_policy = parse_lock_policy(v); })
      .def_readwrite("latching", &EngineConfig::latching)
      .def_readwrite("prefetch", &EngineConfig::prefetch);

  py::class_<DriverConfig>(m, "DriverConfig", "Closed-loop driver: workers, timing, seed")
      .def(py::init<>())
      .def_readwrite("cpus", &DriverConfig::cpus)
      .def_readwrite("pin", &DriverConfig::pin)
      .def_readwrite("warmup_s", &DriverConfig::warmup_s)
      .def_readwrite("duration_s", &DriverConfig::duration_s)
      .def_readwrite("seed", &DriverConfig::seed);

  py::class_<LogConfig>(m, "LogConfig", "Write-ahead log of every instance of a deployment run")
      .def(py::init<>())
      .def_property(
          "mode", [](const LogConfig& c) { return log_mode_name(c.mode); },
          [](LogConfig& c, const std::string& v) { c.mode = parse_log_mode(v); })
      .def_readwrite("directory", &LogConfig::directory)
      .def_readwrite("flush_interval_us", &LogConfig::flush_interval_us)
      .def_readwrite("group_delay_us", &LogConfig::group_delay_us)
      .def_readwrite("buffer_bytes", &LogConfig::buffer_bytes)
      .def_readwrite("max_pending", &LogConfig::max_pending)
      .def_readwrite("record_acks", &LogConfig::record_acks)
      .def("validate", &LogConfig::validate, "Raises ValueError naming the first bad field");

  py::class_<RunConfig>(m, "RunConfig", "Everything one run of one instance needs")
      .def(py::init<>())
      .def_readwrite("workload", &RunConfig::workload)
      .def_readwrite("micro", &RunConfig::micro)
      .def_readwrite("engine", &RunConfig::engine)
      .def_readwrite("driver", &RunConfig::driver)
      .def_readwrite("log", &RunConfig::log)
      .def("validate", &RunConfig::validate, "Raises ValueError naming the first bad field");
}
