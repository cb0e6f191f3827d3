#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "islands/transport/message.hpp"
#include "islands/transport/transport_config.hpp"
#include "islands/transport/transport_stats.hpp"

namespace islands {

//! One instance's endpoint in an N-instance mesh: a channel to and from every other instance,
//! messages delivered whole, in order per (source, destination) pair.
//!
//! Set-up is the constructor: it creates this instance's inbound side (socket or rings) in
//! config.directory, then waits up to attach_timeout_ms for every peer's side to appear, so
//! all instances of a run must be started together. The destructor (or cleanup) removes the
//! files this endpoint created.
//!
//! Neither send nor poll ever blocks: a full channel makes send return false, and the caller
//! polls its own inbound messages before trying again. That is what keeps two instances that
//! send to each other from deadlocking.
//!
//! An endpoint is used by one thread at a time (no internal locking); stats() is read by that
//! thread or after it has stopped.
class Transport {
 public:
  explicit Transport(const TransportConfig& config);
  //! Derived destructors call their cleanup.
  virtual ~Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  //! Queues message for dest with source stamped as instance_id(). Never blocks: true once the
  //! whole message is queued, false (nothing sent, send_full counted) when the channel to dest
  //! is full. Throws std::invalid_argument for dest out of range or this instance, a hello, or
  //! a message over max_message_bytes; std::runtime_error when dest has closed or died.
  virtual bool send(std::uint32_t dest, const Message& message) = 0;
  //! Fault injection: queues data[0, size) for dest as one record, unchecked (the receiver must
  //! reject it if malformed). size is at most max_message_bytes. Same full/error rules as send.
  virtual bool send_raw(std::uint32_t dest, const std::uint8_t* data, std::size_t size) = 0;
  //! Non-blocking receive from any peer: true with out filled (payload capacity reused) when a
  //! message was waiting, false when none (out's contents are then unspecified). Malformed
  //! records met on the way are counted per reason and dropped.
  virtual bool poll(Message& out) = 0;
  //! Closes the channels and unlinks the files this endpoint created (never a peer's). Safe to
  //! call twice; send and poll must not be called afterwards.
  virtual void cleanup() = 0;
  //! Registry name of the transport ("unix", "shm").
  virtual const char* name() const = 0;

  //! This endpoint's instance.
  std::uint32_t instance_id() const { return config_.instance_id; }
  //! Instances in the mesh.
  std::uint32_t n_instances() const { return config_.n_instances; }
  //! The validated configuration the endpoint was made with.
  const TransportConfig& config() const { return config_; }
  //! Counters since the endpoint was made.
  const TransportStats& stats() const { return stats_; }
  //! Degraded conditions found during set-up, each with its reason (e.g. ring files on a disk
  //! file system). Empty when all is as intended.
  const std::vector<std::string>& warnings() const { return warnings_; }

 protected:
  //! Throws std::invalid_argument unless dest is a peer and size bytes fit max_message_bytes.
  void check_destination(std::uint32_t dest, std::size_t size, const char* what) const;
  //! Counts a rejected record.
  void count_malformed(DecodeStatus reason) {
    ++stats_.malformed;
    ++stats_.malformed_by_reason[static_cast<std::size_t>(reason)];
  }

  TransportConfig config_;
  TransportStats stats_;
  std::vector<std::string> warnings_;
};

//! A function that makes one kind of transport endpoint.
using TransportFactory = std::unique_ptr<Transport> (*)(const TransportConfig&);

//! Makes an endpoint of the transport called name ("unix" or "shm"). Throws
//! std::invalid_argument for an unknown name (listing the valid ones) or a bad config, and
//! std::runtime_error when set-up fails (a peer that never appears, a path already in use).
std::unique_ptr<Transport> make_transport(const std::string& name, const TransportConfig& config);
//! Names of the registered transports, in registry order.
std::vector<std::string> transport_names();

}  // namespace islands
