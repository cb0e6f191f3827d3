// The TPC-C consistency test hook (tests only).
#include "islands/workload/tpcc_probe.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "islands/settings/tpcc_config.hpp"
#include "islands/workload/tpcc_fit.hpp"

namespace py = pybind11;
using namespace islands;

void bind_tpcc_probe(py::module_& m) {
  m.def(
      "tpcc_probe",
      [](const RunConfig& config, std::uint64_t transactions, const std::string& corruption) {
        TpccProbe probe;
        {
          py::gil_scoped_release release;
          probe = tpcc_probe(config, transactions, corruption);
        }
        py::dict out;
        out["figures"] = probe.figures;
        out["failures"] = probe.failures;
        out["corrupted"] = probe.corrupted;
        out["committed"] = probe.committed;
        return out;
      },
      py::arg("config"), py::arg("transactions"), py::arg("corruption") = "",
      "Test hook: loads the config's TPC-C sites in one instance, commits `transactions` on one thread, breaks "
      "the row `corruption` names (e.g. 'stock.ytd'; '' for none) and returns {figures, failures, corrupted, "
      "committed}.");
  m.def(
      "tpcc_load_bytes", [](const RunConfig& config, std::uint64_t total_sites) { return tpcc_load_bytes(config.tpcc, total_sites); },
      py::arg("config"), py::arg("total_sites"),
      "The bytes TPC-C's load of total_sites sites is estimated to allocate (what the memory check compares).");
}
