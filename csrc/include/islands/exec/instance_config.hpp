#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "islands/exec/run_config.hpp"

namespace islands {

//! The transport name of a deployment whose instances never talk: every transaction must be
//! local (micro multisite 0, TPC-B remote 0, ...); a transaction needing another instance's
//! sites fails the run with an error that says so. The baseline that shows what a transport
//! costs while it idles.
inline constexpr const char* kNoTransport = "none";

//! One instance of a multi-instance deployment. Every worker (one per CPU) owns one site; the
//! sites are numbered globally across instances in instance order, and every worker of every
//! instance is one endpoint of the transport mesh (endpoint id = global site).
struct InstanceConfig {
  RunConfig run;                               //!< workload and engine; driver.cpus = this instance's CPUs
  std::uint32_t instance_id = 0;               //!< this instance, in [0, instance_sites.size())
  std::vector<std::uint32_t> instance_sites;   //!< sites (= workers) of each instance, in order
  std::string transport = "unix";              //!< transport between workers: "unix", "shm" or "none" (kNoTransport)
  std::string directory;                       //!< private run directory for sockets and rings
  std::size_t ring_bytes = 16 * 1024;          //!< buffering per direction per pair of workers
  std::uint32_t attach_timeout_ms = 30000;     //!< how long to wait for every peer to appear
  bool recover = false;                        //!< restart: replay run.log's log of this instance onto the loaded data first
  //! The socket of every global site (empty: all on one); with message_delay_us, which
  //! messages cross sockets.
  std::vector<std::uint32_t> site_sockets;
  //! An injected delay (virtual topologies): a message from a site on another socket is
  //! delivered this many microseconds after it arrives (0: none).
  double message_delay_us = 0;
  //! How long a worker waiting for a message spins before it sleeps on its doorbell: long
  //! enough that a vote on its way is never waited for asleep on a machine with a core per
  //! worker; 0 where workers outnumber the CPUs (an oversubscribed, functional run), whose
  //! spinning would only keep the peer it waits for off the CPU.
  double idle_spin_us = 1000;

  //! Throws std::invalid_argument naming the first wrong field and why.
  void validate() const;
  //! Global site number of this instance's first site.
  std::uint32_t first_site() const;
  //! Sites in the whole deployment.
  std::uint32_t total_sites() const;
};

//! The config an instance runs (after validate): with engine.plp_workers_per_cpu = k > 1
//! (PLP, pinned, one instance), every CPU of run.driver.cpus listed k times in a row, so k
//! workers are pinned to it, each with a site of its own (and its own client: a CPU's offered
//! load is k closed-loop clients), instance_sites and site_sockets to match; `config` as it is
//! otherwise.
InstanceConfig with_workers_per_cpu(const InstanceConfig& config);

}  // namespace islands
