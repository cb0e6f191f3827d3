// ATraPos monitoring (paper 002 Sec V-D) for Python: a WorkloadMonitor whose snapshot reads as
// numpy arrays (islands.atrapos.from_monitor takes it), a helper that runs owner threads
// against it, and the per-action overhead benchmark.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <thread>
#include <vector>

#include "islands/exec/plp/plp_placement.hpp"
#include "islands/atrapos/monitoring_bench.hpp"
#include "islands/atrapos/workload_monitor.hpp"

namespace py = pybind11;
using namespace islands::atrapos;

//! `v` as a numpy array of `shape` (also running_instance.cpp).
py::array_t<std::uint64_t> as_array(const std::vector<std::uint64_t>& v, std::vector<py::ssize_t> shape) {
  py::array_t<std::uint64_t> out(shape);
  std::copy(v.begin(), v.end(), out.mutable_data());
  return out;
}

//! A monitor's counters as numpy arrays (also running_instance.cpp).
py::dict to_dict(const MonitorSnapshot& s) {
  const auto n = static_cast<py::ssize_t>(s.n_partitions);
  const auto k = static_cast<py::ssize_t>(kSubPartitions);
  py::dict d;
  d["actions"] = as_array(s.actions, {n, k});
  d["cost"] = as_array(s.cost, {n, k});
  d["sync_count"] = as_array(s.sync_count, {n, k, n, k});
  d["sync_bytes"] = as_array(s.sync_bytes, {n, k, n, k});
  return d;
}

namespace {

void check_partition(const WorkloadMonitor& w, std::size_t p, const char* what) {
  if (p >= w.size()) {
    throw py::index_error(std::string(what) + ": " + std::to_string(p) + " is not one of the " +
                          std::to_string(w.size()) + " partitions");
  }
}

void check_sub(unsigned sub, const char* what) {
  if (sub >= kSubPartitions) {
    throw py::index_error(std::string(what) + ": " + std::to_string(sub) + " is not a sub-partition (0-9)");
  }
}

}  // namespace

void bind_atrapos(py::module_& m) {
  m.def(
      "plp_placement",
      [](const std::string& kind, std::size_t workers, std::size_t sites, std::size_t tables, std::uint64_t used,
         const std::vector<std::uint32_t>& sockets, std::size_t per_cpu) {
        if (workers == 0 || sites == 0 || tables == 0) throw py::value_error("plp_placement: workers, sites and tables must be >= 1");
        if (!sockets.empty() && sockets.size() != workers) {
          throw py::value_error("plp_placement: " + std::to_string(sockets.size()) + " sockets for " +
                                std::to_string(workers) + " workers");
        }
        return islands::plp_placement(islands::parse_enum<islands::PlpPlacementKind>("engine.plp_placement", kind),
                                      workers, sites, tables, used, sockets, per_cpu);
      },
      py::arg("kind"), py::arg("workers"), py::arg("sites"), py::arg("tables"), py::arg("used"),
      py::arg("sockets") = std::vector<std::uint32_t>{}, py::arg("per_cpu") = 1,
      "The first owner of every routing unit a PLP instance starts with (engine.plp_placement kind: naive, "
      "workload_aware or atrapos), in the engine's unit order (site * tables + table) * 10 + sub; used: a bit per "
      "table the mix touches; sockets: each worker's (empty: one socket); per_cpu: workers per CPU "
      "(engine.plp_workers_per_cpu)");
  m.def("atrapos_sub_partitions", [] { return kSubPartitions; }, "Sub-partitions per partition of the ATraPos monitor");
  py::class_<WorkloadMonitor>(m, "AtraposMonitor",
                              "ATraPos trace arrays: per partition, actions and cost per sub-partition and "
                              "synchronizations per pair of sub-partitions (paper 002 Sec V-D)")
      .def(py::init<const std::vector<std::pair<std::uint64_t, std::uint64_t>>&>(), py::arg("ranges"),
           "One monitor per partition, partition i covering keys [ranges[i][0], ranges[i][1])")
      .def("__len__", &WorkloadMonitor::size)
      .def(
          "bounds",
          [](const WorkloadMonitor& w, std::size_t p) {
            check_partition(w, p, "partition");
            std::vector<std::uint64_t> b;
            for (std::size_t k = 0; k <= kSubPartitions; ++k) b.push_back(w.partition(p).bound(k));
            return b;
          },
          py::arg("partition"), "The 11 keys that cut the partition into its sub-partitions")
      .def(
          "sub_of",
          [](const WorkloadMonitor& w, std::size_t p, std::uint64_t key) {
            check_partition(w, p, "partition");
            return w.partition(p).sub_of(key);
          },
          py::arg("partition"), py::arg("key"), "The sub-partition of partition holding key")
      .def(
          "record_action",
          [](WorkloadMonitor& w, std::size_t p, unsigned sub, std::uint64_t cost) {
            check_partition(w, p, "partition");
            check_sub(sub, "sub");
            w.partition(p).record_action(sub, cost);
          },
          py::arg("partition"), py::arg("sub"), py::arg("cost"),
          "Records one action (call from one thread per partition)")
      .def(
          "record_sync",
          [](WorkloadMonitor& w, std::size_t p, unsigned sub, std::size_t remote, unsigned remote_sub,
             std::uint64_t bytes) {
            check_partition(w, p, "partition");
            check_partition(w, remote, "remote_partition");
            check_sub(sub, "sub");
            check_sub(remote_sub, "remote_sub");
            w.partition(p).record_sync(sub, static_cast<std::uint32_t>(remote), remote_sub, bytes);
          },
          py::arg("partition"), py::arg("sub"), py::arg("remote_partition"), py::arg("remote_sub"), py::arg("bytes"),
          "Records one synchronization point between two sub-partitions")
      .def(
          "snapshot", [](const WorkloadMonitor& w) { return to_dict(w.snapshot()); },
          "Every counter now: actions and cost (partitions x 10), sync_count and sync_bytes "
          "(partitions x 10 x partitions x 10), as uint64 numpy arrays")
      .def(
          "run_owners",
          [](WorkloadMonitor& w, std::uint64_t actions, std::uint64_t cost, std::uint32_t sync_every) {
            // One owner thread per partition records `actions` actions over its keys (a fixed
            // stride through the range) and every sync_every-th one a sync with the next
            // partition, while this thread snapshots; returns the snapshots taken meanwhile and
            // whether every counter only grew from one to the next.
            std::atomic<std::size_t> running{w.size()};
            std::size_t snapshots = 0;
            bool monotone = true;
            {
              py::gil_scoped_release release;
              std::vector<std::thread> owners;
              for (std::size_t p = 0; p < w.size(); ++p) {
                owners.emplace_back([&, p] {
                  PartitionMonitor& m = w.partition(p);
                  const std::uint64_t width = m.hi() - m.lo();
                  for (std::uint64_t i = 0; i < actions; ++i) {
                    const unsigned sub = m.sub_of(m.lo() + (i * 7919) % width);
                    m.record_action(sub, cost);
                    if (sync_every != 0 && i % sync_every == 0) {
                      m.record_sync(sub, static_cast<std::uint32_t>((p + 1) % w.size()), sub, 8);
                    }
                  }
                  running.fetch_sub(1);
                });
              }
              MonitorSnapshot last = w.snapshot();
              while (running.load() != 0) {
                MonitorSnapshot now = w.snapshot();
                for (std::size_t i = 0; i < now.actions.size(); ++i) monotone = monotone && now.actions[i] >= last.actions[i];
                last = std::move(now);
                ++snapshots;
              }
              for (auto& t : owners) t.join();
            }
            return py::make_tuple(snapshots, monotone);
          },
          py::arg("actions"), py::arg("cost") = 1, py::arg("sync_every") = 4,
          "Owner threads record while this thread snapshots: (snapshots taken, all monotone)");

  m.def(
      "atrapos_monitoring_bench",
      [](const std::string& mode, std::uint64_t actions, std::uint64_t rows, std::uint32_t sync_every,
         std::uint64_t seed) {
        MonitoringBenchConfig c;
        c.mode = parse_monitoring_mode(mode);
        c.actions = actions;
        c.rows = rows;
        c.sync_every = sync_every;
        c.seed = seed;
        MonitoringBenchResult r;
        {
          py::gil_scoped_release release;
          r = run_monitoring_bench(c);
        }
        py::dict d;
        d["ns_per_action"] = r.ns_per_action;
        d["checksum"] = r.checksum;
        d["recorded"] = r.recorded;
        return d;
      },
      py::arg("mode"), py::arg("actions") = 10'000'000, py::arg("rows") = 1u << 16, py::arg("sync_every") = 4,
      py::arg("seed") = 1,
      "One run of the monitoring overhead loop: mode off, counts or timed; ns per action, the rows' "
      "checksum and the actions the monitor recorded");
}
