#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "islands/exec/run_config.hpp"
#include "islands/workload/workload_kind.hpp"

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

  py::class_<TpcbConfig>(m, "TpcbConfig", "TPC-B parameters (paper 000, Sec 3.3, 8.1-8.2)")
      .def(py::init<>())
      .def_readwrite("branches_per_site", &TpcbConfig::branches_per_site)
      .def_readwrite("tellers_per_branch", &TpcbConfig::tellers_per_branch)
      .def_readwrite("accounts_per_branch", &TpcbConfig::accounts_per_branch)
      .def_readwrite("remote", &TpcbConfig::remote);

  py::class_<TatpConfig>(m, "TatpConfig", "TATP parameters (paper 002)")
      .def(py::init<>())
      .def_readwrite("subscribers_per_site", &TatpConfig::subscribers_per_site)
      .def_readwrite("mix", &TatpConfig::mix);

  py::class_<TpccConfig>(m, "TpccConfig", "TPC-C parameters (paper 000, Sec 3.3, 8.3-8.4)")
      .def(py::init<>())
      .def_readwrite("warehouses_per_site", &TpccConfig::warehouses_per_site)
      .def_readwrite("items", &TpccConfig::items)
      .def_readwrite("customers_per_district", &TpccConfig::customers_per_district)
      .def_readwrite("mix", &TpccConfig::mix)
      .def_readwrite("new_order_remote_item", &TpccConfig::new_order_remote_item)
      .def_readwrite("new_order_rollback", &TpccConfig::new_order_rollback)
      .def_readwrite("payment_remote", &TpccConfig::payment_remote)
      .def_readwrite("payment_by_name", &TpccConfig::payment_by_name);

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

  py::class_<PerfEventSpec>(m, "PerfEventSpec", "One counter, resolved to its perf_event_open encoding")
      .def(py::init<>())
      .def(py::init([](std::string name, std::uint32_t type, std::uint64_t config, std::uint64_t config1,
                       std::uint64_t config2, int group, int cpu) {
             return PerfEventSpec{std::move(name), type, config, config1, config2, group, cpu};
           }),
           py::arg("name"), py::arg("type"), py::arg("config"), py::arg("config1") = 0, py::arg("config2") = 0,
           py::arg("group") = 0, py::arg("cpu") = -1)
      .def_readwrite("name", &PerfEventSpec::name)
      .def_readwrite("type", &PerfEventSpec::type)
      .def_readwrite("config", &PerfEventSpec::config)
      .def_readwrite("config1", &PerfEventSpec::config1)
      .def_readwrite("config2", &PerfEventSpec::config2)
      .def_readwrite("group", &PerfEventSpec::group)
      .def_readwrite("cpu", &PerfEventSpec::cpu)
      .def("__repr__", [](const PerfEventSpec& e) {
        return "PerfEventSpec(" + e.name + ", type=" + std::to_string(e.type) + ", config=" + std::to_string(e.config) +
               ", group=" + std::to_string(e.group) + ", cpu=" + std::to_string(e.cpu) + ")";
      });

  py::class_<ProfileConfig>(m, "ProfileConfig", "Counters and time breakdown around the measured window")
      .def(py::init<>())
      .def_readwrite("events", &ProfileConfig::events)
      .def_readwrite("breakdown_every", &ProfileConfig::breakdown_every);

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
      .def_readwrite("checkpoint", &LogConfig::checkpoint)
      .def_readwrite("record_acks", &LogConfig::record_acks)
      .def("validate", &LogConfig::validate, "Raises ValueError naming the first bad field");

  py::class_<RunConfig>(m, "RunConfig", "Everything one run of one instance needs")
      .def(py::init<>())
      .def_readwrite("workload", &RunConfig::workload)
      .def_readwrite("micro", &RunConfig::micro)
      .def_readwrite("tpcb", &RunConfig::tpcb)
      .def_readwrite("tatp", &RunConfig::tatp)
      .def_readwrite("tpcc", &RunConfig::tpcc)
      .def_readwrite("engine", &RunConfig::engine)
      .def_readwrite("driver", &RunConfig::driver)
      .def_readwrite("profile", &RunConfig::profile)
      .def_readwrite("log", &RunConfig::log)
      .def("validate", &RunConfig::validate, "Raises ValueError naming the first bad field")
      .def("validate_sites", &RunConfig::validate_sites, py::arg("total_sites"),
           "The same for an instance of a deployment of total_sites sites");
  m.def("workload_names", &workload_names, "Every workload an instance can run, in registry order.");
}
