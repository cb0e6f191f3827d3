#include "islands/exec/instance_config.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

#include "islands/common/config_error.hpp"
#include "islands/transport/transport.hpp"

namespace islands {

void InstanceConfig::validate() const {
  if (instance_sites.empty()) throw std::invalid_argument("instance_sites: no instances given");
  if (instance_id >= instance_sites.size()) {
    throw std::invalid_argument("instance_id: " + std::to_string(instance_id) + " is not below the " +
                                std::to_string(instance_sites.size()) + " instances");
  }
  for (std::uint32_t sites : instance_sites) {
    if (sites == 0) throw std::invalid_argument("instance_sites: every instance needs at least one site");
  }
  run.validate_sites(total_sites());
  if (instance_sites[instance_id] != run.driver.cpus.size()) {
    throw std::invalid_argument("cpus: instance " + std::to_string(instance_id) + " has " +
                                std::to_string(instance_sites[instance_id]) + " sites but " +
                                std::to_string(run.driver.cpus.size()) + " CPUs (one worker per site)");
  }
  // Without a transport no transaction spans instances, so no worker waits on another's
  // decision; occ and mvcc never wait for a lock (their policy is unused).
  if (instance_sites.size() > 1 && transport != kNoTransport && run.engine.cc != CcKind::none &&
      run.engine.cc != CcKind::occ && run.engine.cc != CcKind::mvcc &&
      run.engine.lock_policy == LockPolicy::wait_die) {
    throw std::invalid_argument(
        "lock_policy: wait_die cannot span instances (a worker waiting for a lock could not serve "
        "the decision that releases it); use no_wait");
  }
  if (instance_sites.size() > 1 && run.engine.execution == ExecutionKind::plp) {
    throw std::invalid_argument("engine.execution: plp partitions one instance among its workers; a deployment of " +
                                std::to_string(instance_sites.size()) +
                                " instances is shared-nothing between them (run plp with one instance)");
  }
  if (total_sites() > 0xffff) throw std::invalid_argument("instance_sites: at most 65535 sites in a deployment");
  if (instance_sites.size() > 1) {
    // Only instances that talk to others need a transport and a directory for it.
    bool known = transport == kNoTransport;
    for (const std::string& name : transport_names()) known = known || name == transport;
    if (!known) {
      std::string names;
      for (const std::string& name : transport_names()) names += name + ", ";
      throw ConfigError("transport", "unknown transport '" + transport + "' (choose " + names + kNoTransport +
                                         " for local work only)");
    }
    if (directory.empty() && transport != kNoTransport) {
      throw ConfigError("directory", "a private run directory is needed");
    }
  }
  if (!site_sockets.empty() && site_sockets.size() != total_sites()) {
    throw std::invalid_argument("site_sockets: " + std::to_string(site_sockets.size()) + " entries for " +
                                std::to_string(total_sites()) + " sites");
  }
  if (!(message_delay_us >= 0 && message_delay_us <= 1e6)) {
    throw ConfigError("message_delay_us", std::to_string(message_delay_us) + " is not in [0, 1000000]");
  }
  if (!(idle_spin_us >= 0 && idle_spin_us <= 1e6)) {
    throw ConfigError("idle_spin_us", std::to_string(idle_spin_us) + " is not in [0, 1000000]");
  }
  if (recover && !run.log.enabled()) {
    throw std::invalid_argument("recover: recovery replays the log, but log.mode is off");
  }
}

std::uint32_t InstanceConfig::first_site() const {
  return std::accumulate(instance_sites.begin(), instance_sites.begin() + instance_id, 0u);
}

std::uint32_t InstanceConfig::total_sites() const {
  return std::accumulate(instance_sites.begin(), instance_sites.end(), 0u);
}

InstanceConfig with_workers_per_cpu(const InstanceConfig& config) {
  const std::uint32_t k = config.run.engine.plp_workers_per_cpu;
  if (k <= 1) return config;
  InstanceConfig out = config;
  out.run.driver.cpus.clear();
  for (int cpu : config.run.driver.cpus) out.run.driver.cpus.insert(out.run.driver.cpus.end(), k, cpu);
  for (std::uint32_t& sites : out.instance_sites) sites *= k;
  out.site_sockets.clear();
  for (std::uint32_t socket : config.site_sockets) out.site_sockets.insert(out.site_sockets.end(), k, socket);
  return out;
}

}  // namespace islands
