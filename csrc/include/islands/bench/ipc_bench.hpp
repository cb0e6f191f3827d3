#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "islands/bench/ipc_mechanism.hpp"
#include "islands/common/latency_histogram.hpp"

namespace islands {

//! One ping-pong run between two processes (paper 000, Fig 2): the client (this process)
//! sends a message, the server (a forked child) verifies it and replies, the client verifies
//! the reply; each round trip is timed in the client.
struct IpcBenchConfig {
  IpcMechanism mechanism = IpcMechanism::unix_stream;  //!< messaging mechanism
  int client_cpu = 0;              //!< CPU the client is pinned to; -1 leaves it to the OS
  int server_cpu = 1;              //!< CPU the server is pinned to; -1 leaves it to the OS
  std::size_t message_bytes = 256; //!< bytes per message, each direction (>= 1)
  double warmup_s = 0.2;           //!< seconds of round trips before measuring
  double duration_s = 1.0;         //!< seconds measured (when round_trips is 0)
  std::uint64_t round_trips = 0;   //!< > 0: measure exactly this many round trips instead
  std::uint64_t seed = 1;          //!< seed of the message contents
  double timeout_s = 30.0;         //!< seconds past the planned end (counted runs: 10 ms per round trip) before the server is killed
  std::int64_t inject_corruption = -1;  //!< tests only: the server corrupts its reply to this message (-1 = never)

  //! Throws std::invalid_argument naming the first bad field.
  void validate() const;
};

//! What one run measured.
struct IpcBenchResult {
  LatencyHistogram round_trip;      //!< round-trip latency of measured messages, ns
  std::uint64_t round_trips = 0;    //!< measured round trips
  std::uint64_t total_round_trips = 0;  //!< including warm-up; all verified by both sides
  std::uint64_t server_verified = 0;    //!< requests the server verified (== total_round_trips)
  double measured_s = 0;            //!< seconds of the measured window
  int client_cpu_seen = -1;         //!< CPU the client ran on at the end
  int server_cpu_seen = -1;         //!< CPU the server ran on at the end

  //! Round trips per second.
  double round_trips_per_s() const { return measured_s > 0 ? round_trips / measured_s : 0.0; }
  //! One-way messages per second (two per round trip).
  double messages_per_s() const { return 2.0 * round_trips_per_s(); }
};

//! Forks the server, runs the ping-pong and returns the measurements. Throws
//! std::invalid_argument for a bad config or CPU, CapabilityMissing when the mechanism is not
//! available here, IntegrityError when a message arrives corrupted, std::runtime_error when
//! a side fails. The calling thread's CPU affinity is restored before returning.
IpcBenchResult run_ipc_bench(const IpcBenchConfig& config);

}  // namespace islands
