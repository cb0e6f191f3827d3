// The workload registry as Python reads it: each workload's description (names, tables,
// transactions, consistency conditions) and its load's size for a config's settings.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "islands/exec/load_size.hpp"
#include "islands/exec/run_config.hpp"
#include "islands/exec/workload_registry.hpp"

namespace py = pybind11;
using namespace islands;

namespace {

py::dict table_dict(const TableLoad& t) {
  py::dict d;
  d["name"] = t.name;
  d["columns"] = t.columns;
  d["row_bytes"] = t.row_bytes();
  d["rows_per_site"] = t.rows_per_site;
  d["min_rows_per_site"] = t.min_rows_per_site;
  d["max_rows_per_site"] = t.max_rows_per_site;
  d["rows_per_instance"] = t.rows_per_instance;
  d["index_bytes_per_row"] = t.index_bytes_per_row;
  d["chunked"] = t.chunked;
  return d;
}

}  // namespace

void bind_workloads(py::module_& m) {
  m.def(
      "workloads",
      [] {
        py::list out;
        const RunConfig defaults;
        for (const WorkloadEntry& entry : workloads()) {
          py::dict d;
          d["name"] = entry.name;
          d["section"] = entry.name;
          d["settings_class"] = entry.settings_class;
          d["logs"] = entry.logs;
          d["transactions"] = entry.transactions;
          d["figures_at_start"] = entry.figures_at_start;
          d["conditions"] = entry.conditions;
          d["size_setting"] = entry.size_setting;
          d["changes"] = entry.changes;
          d["routes_tables"] = entry.routes_tables;
          std::vector<std::string> tables;
          for (const TableLoad& t : entry.load_size(defaults)) tables.push_back(t.name);
          d["tables"] = tables;
          out.append(d);
        }
        return out;
      },
      "The workload registry, in its order: each workload's name, settings section and settings class, whether it "
      "logs, its transaction types by number (as commits_by_type counts them), the figures its conditions need from "
      "the run's start, its consistency conditions' names, the setting that sizes its load (section.field), its "
      "tables' names, whether its draw can change while it runs (changes) and whether it can route its tables apart "
      "(routes_tables, engine.plp_units = per_table; tables in that order).");
  m.def(
      "verify",
      [](const std::string& workload, const std::map<std::string, std::int64_t>& checks) {
        return find_workload(workload).verify(checks);
      },
      py::arg("workload"), py::arg("checks"),
      "The workload's consistency conditions that `checks` (figures summed over the deployment) violate; empty: "
      "consistent.");
  m.def(
      "load_size",
      [](const RunConfig& config) {
        py::list out;
        for (const TableLoad& t : find_workload(config.workload).load_size(config)) out.append(table_dict(t));
        return out;
      },
      py::arg("config"),
      "The tables of config's workload as its settings size them: name, columns, row_bytes, rows_per_site (the mean "
      "where the load draws them, in [min_rows_per_site, max_rows_per_site]), rows_per_instance, "
      "index_bytes_per_row and chunked (allocated in chunks a site).");
  m.def(
      "load_bytes",
      [](const RunConfig& config, std::uint64_t total_sites, std::uint64_t instances) {
        return load_bytes(find_workload(config.workload).load_size(config), total_sites, instances);
      },
      py::arg("config"), py::arg("total_sites"), py::arg("instances"),
      "The bytes the load of config's workload on total_sites sites in `instances` instances is estimated to "
      "allocate (rows and indexes, from load_size).");
  m.def(
      "writes", [](const RunConfig& config) { return find_workload(config.workload).writes(config); },
      py::arg("config"),
      "Whether config's workload can write under its settings (a series that cannot runs unlogged).");
  m.def(
      "loaded_rows",
      [](const RunConfig& config) {
        std::vector<TableRows> rows;
        {
          py::gil_scoped_release release;
          rows = runnable_workload(config.workload).loaded_rows(config);
        }
        py::dict out;
        for (const TableRows& t : rows) {
          py::dict d;
          d["rows"] = t.rows;
          d["row_bytes"] = t.row_bytes;
          out[py::str(t.name)] = d;
        }
        return out;
      },
      py::arg("config"),
      "Test hook: loads every site of config (one a driver CPU) in one instance in this thread and returns each "
      "table's {rows, row_bytes} (what load_size declares).");
}
