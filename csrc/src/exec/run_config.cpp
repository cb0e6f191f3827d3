#include "islands/exec/run_config.hpp"

#include <stdexcept>
#include <string>

#include "islands/common/config_error.hpp"
#include "islands/exec/workload_registry.hpp"

namespace islands {

void RunConfig::validate_sites(std::uint64_t total_sites) const {
  engine.validate();
  driver.validate();
  const WorkloadEntry& entry = runnable_workload(workload);  // refused where its variants are not compiled
  entry.validate(*this, total_sites * engine.plp_workers_per_cpu);  // a site per worker
  profile.validate();
  log.validate();
  if (log.enabled() && !entry.logs) {
    // Every workload logs today; one added without redo (kLogs false) is refused here.
    std::string names;
    for (const WorkloadEntry& w : workloads()) {
      if (w.logs) names += (names.empty() ? "" : " and ") + w.name;
    }
    throw ConfigError("log.mode", workload + " does not log its writes yet (" + names + " do); use log.mode off for " +
                                      workload);
  }
  if (log.enabled() && log.content == LogContent::command) {
    // Executing the commands again in log order repeats the run only where that order is the
    // order the transactions serialized in and they read nothing the log does not order.
    const std::string field = "log.content";
    if (!entry.replays_commands) {
      throw ConfigError(field, "command: " + workload + " cannot execute its transactions again at recovery (tpcc "
                                                        "can); use redo");
    }
    if (engine.cc == CcKind::occ || engine.cc == CcKind::mvcc) {
      throw ConfigError(field, std::string("command: replay in log order repeats a run whose log order is its "
                                           "serial order (engine.cc none, 2pl or table_2pl), not ") +
                                   enum_name(engine.cc) + "'s; use redo");
    }
    if (engine.isolation != IsolationLevel::serializable) {
      throw ConfigError(field, std::string("command: replay repeats serializable runs only, not ") +
                                   enum_name(engine.isolation) + "; use redo");
    }
    if (engine.execution == ExecutionKind::plp) {
      throw ConfigError(field, "command: plp workers log their partitions' after-images; use redo");
    }
  }
  if (driver.clients == ClientKind::instance_wide && engine.execution == ExecutionKind::plp) {
    // A PLP worker draws at its own partitions and hands the rest over; routed clients
    // (closed, open) send each request to its home unit's owner instead.
    throw ConfigError("driver.clients", "instance_wide is not for engine.execution plp (its workers draw at their "
                                        "own partitions); use closed or open clients, routed to each home unit");
  }
  if (routes_requests(driver.clients) && engine.plp_handoff > 0) {
    // Clients route each request to its home unit's owner already; the hand-off moves what a
    // worker drew itself.
    throw ConfigError("engine.plp_handoff", std::string("hands a worker's own draws to their owner; ") +
                                                enum_name(driver.clients) +
                                                " clients route their requests to it already (set it to 0)");
  }
  if (engine.isolation == IsolationLevel::snapshot && engine.cc != CcKind::mvcc) {
    throw ConfigError("engine.isolation", "snapshot needs multi-version concurrency control (engine.cc mvcc); " +
                                              std::string(enum_name(engine.cc)) + " runs serializable or read_committed");
  }
  if (engine.cc == CcKind::mvcc && engine.isolation != IsolationLevel::snapshot) {
    throw ConfigError("engine.isolation", std::string("mvcc runs snapshot isolation only (reads are not validated), not ") +
                                              enum_name(engine.isolation) + "; set engine.isolation snapshot");
  }
  if (engine.test_skip_write_conflict && engine.cc != CcKind::mvcc) {
    throw ConfigError("engine.test_skip_write_conflict",
                      std::string("only mvcc checks write conflicts at commit; engine.cc is ") + enum_name(engine.cc));
  }
  if (engine.execution == ExecutionKind::plp && engine.cc != CcKind::two_pl) {
    throw ConfigError("engine.execution", std::string("plp locks rows in their partitions (no-wait 2PL) and runs under "
                                                      "engine.cc 2pl only, not ") +
                                              enum_name(engine.cc));
  }
  if (engine.plp_workers_per_cpu > 1) {  // several workers pinned to each CPU (exec/instance_config.hpp)
    const std::string field = "engine.plp_workers_per_cpu";
    if (engine.execution != ExecutionKind::plp) {
      throw ConfigError(field, std::string("several workers per CPU are PLP's; engine.execution is ") + enum_name(engine.execution));
    }
    if (!driver.pin) throw ConfigError(field, "workers share a CPU only when pinned; driver.pin is false");
    if (engine.plp_placement != PlpPlacementKind::naive) {
      throw ConfigError(field, std::string(enum_name(engine.plp_placement)) +
                                   " places one partition per core; several workers per CPU go with naive");
    }
  }
  if (engine.cc == CcKind::occ && engine.isolation != IsolationLevel::serializable) {
    throw ConfigError("engine.isolation", std::string("occ validates every read at commit, so it runs serializable only, not ") +
                                              enum_name(engine.isolation));
  }
  if (engine.plp_reshuffle_s > 0 && engine.execution != ExecutionKind::plp) {
    throw ConfigError("engine.plp_reshuffle_s", std::string("moves routing units between plp workers; engine.execution is ") +
                                                    enum_name(engine.execution));
  }
  if (engine.test_skip_drain && engine.execution != ExecutionKind::plp) {
    throw ConfigError("engine.test_skip_drain", std::string("only plp drains moved units; engine.execution is ") +
                                                    enum_name(engine.execution));
  }
  if (engine.plp_monitor && engine.execution != ExecutionKind::plp) {
    throw ConfigError("engine.plp_monitor", std::string("monitors plp partitions; engine.execution is ") +
                                                enum_name(engine.execution));
  }
  if (engine.test_skip_validation && engine.cc != CcKind::occ) {
    throw ConfigError("engine.test_skip_validation", std::string("only occ validates; engine.cc is ") + enum_name(engine.cc));
  }
  if (engine.cc == CcKind::none && driver.cpus.size() != 1) {
    throw ConfigError("engine.cc", "'none' is a single-threaded instance but " +
                                std::to_string(driver.cpus.size()) +
                                " CPUs were given (use 2pl, table_2pl or occ, or one CPU)");
  }
}

}  // namespace islands
