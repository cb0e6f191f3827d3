#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "islands/common/abort_reason.hpp"
#include "islands/exec/engine_run.hpp"
#include "islands/exec/instance.hpp"
#include "islands/exec/workload_registry.hpp"
#include "islands/common/latency_histogram.hpp"
#include "islands/perf/component.hpp"
#include "islands/workload/bare_loop.hpp"

namespace py = pybind11;
using namespace islands;

py::dict counter_reading_dict(const CounterReading& r);                  // perf.cpp
void put_worker_counters(py::dict& d, const WorkerStats& w);            // worker_counters.cpp
void put_run_totals(py::dict& out, const std::vector<WorkerStats>& workers);  // worker_counters.cpp
py::list counter_schema();                                              // worker_counters.cpp

namespace {

py::dict latency_dict(const LatencyHistogram& h) {
  py::dict d;
  d["count"] = h.count();
  d["mean_ns"] = h.mean();
  d["p50_ns"] = h.quantile(0.50);
  d["p95_ns"] = h.quantile(0.95);
  d["p99_ns"] = h.quantile(0.99);
  d["p999_ns"] = h.quantile(0.999);
  d["max_ns"] = h.quantile(1.0);
  return d;
}

// Sparse (bucket, count) pairs, so that instances merge exactly.
py::list sparse_buckets(const LatencyHistogram& h) {
  py::list buckets;
  h.for_each_bucket([&](int b, std::uint64_t c) { buckets.append(py::make_tuple(b, c)); });
  return buckets;
}



}  // namespace

//! A run's statistics as the dict `_core.run` returns (also running_instance.cpp).
py::dict stats_dict(const RunStats& stats) {
  py::list workers;
  for (const WorkerStats& w : stats.workers) {
    py::dict d;
    d["cpu"] = w.cpu;
    d["observed_cpu"] = w.observed_cpu;
    d["interleave_depth"] = w.interleave_depth;
    d["site"] = w.site;
    d["latency"] = latency_dict(w.latency);
    put_worker_counters(d, w);
    d["latency_buckets"] = sparse_buckets(w.latency);
    py::list by_type;  // per transaction type (commits_by_type's numbering), sparse buckets
    for (const LatencyHistogram& h : w.latency_by_type) by_type.append(sparse_buckets(h));
    d["latency_buckets_by_type"] = by_type;
    py::list counters;
    for (const CounterReading& r : w.counters) counters.append(counter_reading_dict(r));
    d["counters"] = counters;
    workers.append(d);
  }
  py::dict out;
  out["workers"] = workers;
  out["load_s"] = stats.load_s;
  out["measured_s"] = stats.measured_s;
  out["stopped_early"] = stats.stopped_early;
  out["quiesce_ns"] = stats.quiesce_ns;
  out["requests_queued_at_end"] = stats.requests_queued_at_end;
  out["requests_refused"] = stats.requests_refused;
  out["longest_active_ns"] = stats.longest_active_ns;
  put_run_totals(out, stats.workers);  // commits, aborts, ...: the counters reported "run"
  out["latency"] = latency_dict(stats.latency());
  out["payload_sum_before"] = stats.payload_sum_before;
  out["payload_sum_after"] = stats.payload_sum_after;
  py::list cpu_counters;
  for (const CounterReading& r : stats.cpu_counters) cpu_counters.append(counter_reading_dict(r));
  out["cpu_counters"] = cpu_counters;
  out["ns_per_tick"] = stats.ns_per_tick;
  const auto figures = [](const CheckFigures& list) {
    py::dict d;
    for (const auto& [name, value] : list) d[py::str(name)] = value;
    return d;
  };
  out["checks_before"] = figures(stats.checks_before);
  out["checks_after"] = figures(stats.checks_after);
  const RecoveryStats& r = stats.recovery;
  py::dict recovery;
  recovery["performed"] = r.performed;
  recovery["records"] = r.records;
  recovery["txns_redone"] = r.txns_redone;
  recovery["commands_replayed"] = r.commands_replayed;
  recovery["rows_redone"] = r.rows_redone;
  recovery["prepared_committed"] = r.prepared_committed;
  recovery["prepared_aborted"] = r.prepared_aborted;
  recovery["in_doubt"] = r.in_doubt;
  recovery["discarded"] = r.discarded;
  recovery["max_epoch"] = r.max_epoch;
  recovery["end_lsn"] = r.end_lsn;
  recovery["tail_note"] = r.tail_note;
  recovery["snapshot_rows"] = r.snapshot_rows;
  recovery["snapshot_lsn"] = r.snapshot_lsn;
  recovery["snapshot_epoch"] = r.snapshot_epoch;
  recovery["acknowledged"] = r.acknowledged;
  recovery["acknowledged_recovered"] = r.acknowledged_recovered;
  recovery["seconds"] = r.seconds;
  out["recovery"] = recovery;
  py::dict log;
  log["records"] = stats.log.records;
  log["bytes"] = stats.log.bytes;
  log["flushes"] = stats.log.flushes;
  log["flush_ns"] = stats.log.flush_ns;
  log["buffer_waits"] = stats.log.buffer_waits;
  log["flushes_on_demand"] = stats.log.flushes_on_demand;
  log["flushes_by_workers"] = stats.log.flushes_by_workers;
  log["flusher_cpu_ns"] = stats.log.flusher_cpu_ns;
  log["durable_lsn"] = stats.log_durable_lsn;
  out["log"] = log;
  const RepartitionStats& rp = stats.repartitioning;
  py::dict repartitioning;
  repartitioning["repartitions"] = rp.repartitions;
  repartitioning["units_moved"] = rp.units_moved;
  repartitioning["pause_ns_total"] = rp.pause_ns_total;
  repartitioning["pause_ns_max"] = rp.pause_ns_max;
  repartitioning["incomplete"] = rp.incomplete;
  repartitioning["stalls"] = rp.stalls;
  repartitioning["stall"] = rp.stall;
  out["repartitioning"] = repartitioning;
  if (stats.monitor.n_partitions != 0) {  // engine.plp_monitor
    py::dict monitor;
    monitor["partitions"] = stats.monitor.n_partitions;
    monitor["actions"] = stats.monitor.actions;
    monitor["cost"] = stats.monitor.cost;
    monitor["sync_count"] = stats.monitor.sync_count;
    out["monitor"] = monitor;
  }
  if (!stats.history.empty()) {  // engine.record_history: native-endian uint64 words
    out["history"] = py::bytes(reinterpret_cast<const char*>(stats.history.data()), 8 * stats.history.size());
  }
  return out;
}


void bind_run(py::module_& m) {
  m.def(
      "run",
      [](const RunConfig& config) {
        RunStats stats;
        {
          py::gil_scoped_release release;
          stats = run_engine(config);
        }
        return stats_dict(stats);
      },
      py::arg("config"),
      "Runs one instance (load, warm-up, measured window) and returns its statistics as a dict.");
  m.def(
      "bare_loop",
      [](const RunConfig& config) {
        BareLoopResult result;
        {
          py::gil_scoped_release release;
          result = run_bare_loop(config);
        }
        py::dict d;
        d["throughput_tps"] = result.throughput_tps;
        d["per_cpu_s"] = result.per_cpu_s;
        return d;
      },
      py::arg("config"),
      "The engine-overhead baseline: the same probes in a bare loop; a dict of throughput_tps "
      "(transactions per second) and per_cpu_s (per CPU-second of its thread).");
  py::class_<InstanceConfig>(m, "InstanceConfig", "One instance of a multi-instance deployment")
      .def(py::init<>())
      .def_readwrite("run", &InstanceConfig::run)
      .def_readwrite("instance_id", &InstanceConfig::instance_id)
      .def_readwrite("instance_sites", &InstanceConfig::instance_sites)
      .def_readwrite("transport", &InstanceConfig::transport)
      .def_readwrite("directory", &InstanceConfig::directory)
      .def_readwrite("ring_bytes", &InstanceConfig::ring_bytes)
      .def_readwrite("attach_timeout_ms", &InstanceConfig::attach_timeout_ms)
      .def_readwrite("site_sockets", &InstanceConfig::site_sockets)
      .def_readwrite("message_delay_us", &InstanceConfig::message_delay_us)
      .def_readwrite("idle_spin_us", &InstanceConfig::idle_spin_us)
      .def_readwrite("recover", &InstanceConfig::recover)
      .def("validate", &InstanceConfig::validate, "Raises ValueError naming the first bad field");

  py::class_<Instance>(m, "Instance", "One engine instance of a deployment (2PC between instances)")
      .def(py::init<const InstanceConfig&>(), py::arg("config"))
      .def("load", [](Instance& self) {
        py::gil_scoped_release release;
        self.load();
      }, "Pins workers, loads their sites, attaches the transport mesh; returns when all are ready")
      .def("run", [](Instance& self, std::int64_t start_at_ns, double warmup_s, double duration_s) {
        RunStats stats;
        {
          py::gil_scoped_release release;
          stats = self.run(start_at_ns, warmup_s, duration_s);
        }
        return stats_dict(stats);
      }, py::arg("start_at_ns"), py::arg("warmup_s"), py::arg("duration_s"),
      "Runs warm-up from start_at_ns (time.monotonic_ns clock) and the window; returns statistics")
      .def("checkpoint", [](Instance& self) {
        py::gil_scoped_release release;
        return self.checkpoint();
      }, "After a clean run with the log on: snapshot every row and start the log afresh; False when there is no log");

  m.def("latency_summary", [](const std::vector<std::pair<int, std::uint64_t>>& buckets) {
    LatencyHistogram h;
    for (const auto& [bucket, count] : buckets) {
      if (bucket < 0 || bucket >= LatencyHistogram::kBuckets) throw std::invalid_argument("latency bucket out of range");
      h.add_bucket(bucket, count);
    }
    return latency_dict(h);
  }, "Percentiles of merged sparse (bucket, count) pairs from several workers or instances");
  m.def("build_info", [] {
    const BuildInfo info = build_info();
    py::dict d;
    d["compiler"] = info.compiler;
    d["flags"] = info.flags;
    d["build_type"] = info.build_type;
    return d;
  });
  m.def("counters", &counter_schema,
        "Every worker counter: name, group (worker or clients), kind, unit, scope (window or run), aggregate "
        "(sum, max, each), reported (where a result shows its aggregate) and doc.");
  m.def("abort_reasons", [] {
    py::dict d;
    for (std::size_t i = 0; i < kNumAbortReasons; ++i) {
      const auto reason = static_cast<AbortReason>(i);
      d[abort_reason_name(reason)] = abort_reason_doc(reason);
    }
    return d;
  }, "Every abort reason with what it means.");
}
