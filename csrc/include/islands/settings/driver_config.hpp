#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "islands/common/setting_field.hpp"
#include "islands/settings/client_kind.hpp"

namespace islands {

//! The fields of DriverConfig: F(type, name, default, min, max, help) (see setting_field.hpp).
#define ISLANDS_DRIVER_FIELDS(F)                                                                       \
  F(std::vector<int>, cpus, {}, kUnbounded, kUnbounded, "one worker per entry, pinned there; one site per worker") \
  F(bool, pin, true, kUnbounded, kUnbounded, "false: leave placement to the OS scheduler")            \
  F(double, warmup_s, 1.0, 0, 86400, "seconds run before measuring (at most a day)")                     \
  F(double, duration_s, 5.0, 0.001, 86400, "seconds measured (at most a day)")                        \
  F(std::uint64_t, seed, 1, kUnbounded, kUnbounded, "base random seed; worker i uses seed + i")         \
  F(double, timeline_interval_s, 0.1, 0.001, 3600, "the throughput timeline counts commits per interval of this many seconds") \
  F(std::uint64_t, min_free_memory_mib, 512, 0, 1073741824,                                  \
    "the run stops early, keeping what it measured, when the machine's available memory falls below this many MiB (0: never)") \
  F(ClientKind, clients, ClientKind::workers, kUnbounded, kUnbounded,                                   \
    "who submits transactions: workers (each its own closed-loop client at its own site: per-site locality), instance_wide (each its own client, homes drawn over its instance's sites: the papers' load), closed (client_count clients routed to the home instance), open (Poisson arrivals at offered_rate)") \
  F(std::uint32_t, client_count, 0, 0, 1048576, "clients = closed: how many clients (0: four per worker)") \
  F(double, think_us, 0, 0, 1e7, "clients = closed: microseconds a client waits after an answer before its next transaction") \
  F(double, offered_rate, 0, 0, 1e9, "clients = open: transactions per second offered to the whole deployment (Poisson arrivals)")

//! The in-process driver: one worker thread per CPU running transactions (retrying aborts)
//! through a warm-up and a measured window, submitted by the workers themselves or by a client
//! layer apart from them (driver.clients, settings/client_kind.hpp).
struct DriverConfig {
  ISLANDS_SETTINGS(DriverConfig, "driver", "Closed-loop driver: workers, timing, seed", ISLANDS_DRIVER_FIELDS)

  //! Throws ConfigError naming the field and why: the ranges, and one distinct CPU >= 0 per
  //! worker.
  void validate() const {
    check_fields(*this);
    if (cpus.empty()) throw ConfigError("driver.cpus", "at least one CPU is needed");
    for (int cpu : cpus) {
      if (cpu < 0) throw ConfigError("driver.cpus", "CPU " + std::to_string(cpu) + " does not exist");
    }
    std::vector<int> sorted = cpus;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      throw ConfigError("driver.cpus", "a CPU is listed twice (one worker per CPU)");
    }
    if (clients == ClientKind::open && offered_rate <= 0) {
      throw ConfigError("driver.offered_rate", "open clients need a rate above 0 transactions per second");
    }
  }
};

}  // namespace islands
