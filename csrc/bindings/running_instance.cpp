// A run in progress in this process, as an object Python holds (`_core.start`): the run's own
// thread and its PLP control handle (exec/plp/plp_control.hpp), which a controller (ATraPos's
// adaptive loop, a benchmark, a test) acts on while the engine runs; `join` gives the run's
// statistics, as `_core.run` does.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "islands/exec/engine_run.hpp"
#include "islands/exec/plp/plp_control.hpp"

namespace py = pybind11;
using namespace islands;

py::dict stats_dict(const RunStats& stats);                                            // run.cpp
py::dict to_dict(const atrapos::MonitorSnapshot& s);                                  // atrapos.cpp
py::array_t<std::uint64_t> as_array(const std::vector<std::uint64_t>& v, std::vector<py::ssize_t> shape);  // atrapos.cpp

namespace {

//! One run of `run_engine` on its own thread, with the handle its PLP instance attaches to.
class RunningInstance {
 public:
  //! Validates `config` (ConfigError before any thread starts) and starts the run.
  explicit RunningInstance(const RunConfig& config) {
    config.validate();
    thread_ = std::thread([this, config] {
      try {
        stats_ = run_engine(config, &control_);
      } catch (...) {
        error_ = std::current_exception();
      }
      control_.end();
    });
  }
  //! Waits for the run to end (its duration is fixed) if nobody joined it.
  ~RunningInstance() {
    if (thread_.joinable()) thread_.join();
  }
  RunningInstance(const RunningInstance&) = delete;
  RunningInstance& operator=(const RunningInstance&) = delete;

  //! Waits for the run's end; its statistics, or what it threw. May be called again.
  const RunStats& join() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(error_);
    return stats_;
  }

  PlpControl& control() { return control_; }

 private:
  PlpControl control_;
  RunStats stats_;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once the members it uses exist
};

}  // namespace

void bind_running_instance(py::module_& m) {
  // Every call that takes the control's lock releases the GIL first: a re-partitioning holds the
  // lock through its drain, and a thread blocked on it must not stall every other Python thread.
  py::class_<RunningInstance>(m, "RunningInstance",
                              "A run in progress in this process (islands._core.start): its PLP instance's controls "
                              "while it runs (each answers None, [] or False while none is attached), then join()")
      .def(
          "join",
          [](RunningInstance& self) {
            const RunStats* stats = nullptr;
            {
              py::gil_scoped_release release;
              stats = &self.join();
            }
            return stats_dict(*stats);
          },
          "Waits for the run to end; its statistics as _core.run returns them (or raises what it raised)")
      .def(
          "wait_attached", [](RunningInstance& self, double timeout_s) { return self.control().wait_attached(timeout_s); },
          py::arg("timeout_s") = 60.0, py::call_guard<py::gil_scoped_release>(),
          "Waits up to timeout_s for the PLP instance to attach (its workers drawing); False when the run ended "
          "first, is not PLP, or the time ran out")
      .def_property_readonly(
          "attached", [](RunningInstance& self) { return self.control().attached(); },
          "Whether the PLP instance is attached now (its workers drawing transactions)")
      .def_property_readonly(
          "ended", [](RunningInstance& self) { return self.control().ended(); }, "Whether the run is over")
      .def(
          "owners", [](RunningInstance& self) { return self.control().owners(); },
          py::call_guard<py::gil_scoped_release>(), "The owner worker of every routing unit (empty: not attached)")
      .def(
          "apply",
          [](RunningInstance& self, const std::vector<std::uint32_t>& target) -> py::object {
            std::optional<PlpRepartition> done;
            {
              py::gil_scoped_release release;
              done = self.control().apply(target);
            }
            if (!done) return py::none();
            py::dict d;
            d["units_moved"] = done->units_moved;
            d["pause_ns"] = done->pause_ns;
            d["completed"] = done->completed;
            d["stall"] = done->stall;
            return d;
          },
          py::arg("target"),
          "Moves every routing unit u to worker target[u] (freeze, drain, hand over); {units_moved, pause_ns, "
          "completed, stall (the drain watchdog's dump, empty normally)}, or None when not attached")
      .def(
          "snapshot",
          [](RunningInstance& self) -> py::object {
            std::optional<atrapos::MonitorSnapshot> s;
            std::optional<std::pair<std::size_t, std::vector<std::uint64_t>>> drawn;
            {
              py::gil_scoped_release release;
              s = self.control().snapshot();
              drawn = self.control().drawn();
            }
            if (!s || !drawn) return py::none();
            py::dict d = to_dict(*s);
            d["drawn"] = as_array(drawn->second, {static_cast<py::ssize_t>(drawn->first),
                                                  static_cast<py::ssize_t>(s->n_partitions),
                                                  static_cast<py::ssize_t>(atrapos::kSubPartitions)});
            return d;
          },
          "The monitor (engine.plp_monitor), summed over the workers: actions and cost (partitions x 10 units; a "
          "partition per site, or per site and table with engine.plp_units = per_table: site * tables + table), "
          "sync_count and sync_bytes; and drawn (workers x partitions x 10: the transactions each worker drew by "
          "home unit, sampled); None when not attached or the monitor is off")
      .def(
          "worker_cpu_ns", [](RunningInstance& self) { return self.control().worker_cpu_ns(); },
          py::call_guard<py::gil_scoped_release>(),
          "The CPU time (ns) each worker thread has had so far (monitor on); None otherwise")
      .def(
          "commits", [](RunningInstance& self) { return self.control().commits(); },
          py::call_guard<py::gil_scoped_release>(), "Transactions committed so far (monitor on); None otherwise")
      .def(
          "monitor_recording", [](RunningInstance& self, bool on) { return self.control().set_recording(on); },
          py::arg("on"), py::call_guard<py::gil_scoped_release>(),
          "Switches the monitor's recording on or off (a benchmark measures its cost within one run); False when not "
          "attached or the monitor is off")
      .def(
          "park", [](RunningInstance& self, std::size_t worker, bool parked) { return self.control().park(worker, parked); },
          py::arg("worker"), py::arg("parked"), py::call_guard<py::gil_scoped_release>(),
          "Takes worker's core away (parked: it draws nothing; pinned, its thread runs on the unparked workers' CPUs "
          "and serves its units there) or gives it back (on its own CPU again); False when not attached or it has no "
          "such worker")
      .def(
          "change",
          [](RunningInstance& self, std::optional<std::string> mix, std::optional<double> hot_fraction,
             std::optional<double> hot_share) {
            WorkloadChange change{std::move(mix), hot_fraction, hot_share};
            py::gil_scoped_release release;
            return self.control().change(change);
          },
          py::kw_only(), py::arg("mix") = py::none(), py::arg("hot_fraction") = py::none(),
          py::arg("hot_share") = py::none(),
          "Changes the workload's draw (the settings of those names: tatp.mix, tatp.hot_fraction, tatp.hot_share), "
          "seen from each worker's next transaction; False when not attached; ConfigError naming the field for a "
          "value its settings refuse (the run goes on unchanged)");
  m.def(
      "start",
      [](const RunConfig& config) { return std::make_unique<RunningInstance>(config); }, py::arg("config"),
      "Starts one instance's run (as _core.run does) on its own thread and returns it at once: a RunningInstance "
      "to control (PLP) while it runs and to join()");
}
