#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "islands/transport/doorbell.hpp"
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
//! Every endpoint has a doorbell (`<directory>/<name>-bell-<i>`, see doorbell.hpp) that its
//! peers ring after each record they queue for it. may_have_message and poll_rung look at it
//! first (one load) and poll the channels only when it rang since the last drain, so an
//! endpoint that nobody talks to costs no system call per look; wait_rung sleeps on it while
//! idle. A transport whose channels can be watched directly (shm: the word where each ring's
//! next record will appear) sets watches_ instead: the look compares those words, and peers
//! ring the doorbell only to wake a receiver that sleeps.
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

  //! poll, but only when a peer rang this endpoint's doorbell since the last call that found
  //! nothing: otherwise false after one load, no system call. Never misses a message sent by
  //! send or send_raw (records that are no message, e.g. a stranger's, wait for the next ring
  //! or a plain poll). Messages taken by a plain poll in between are simply not found again.
  bool poll_rung(Message& out) {
    if (!watches_.empty()) return poll(out);  // the channels are watched directly
    if (!draining_) {
      const std::uint32_t now = bell_.rings();
      if (now == drained_at_) return false;
      drained_at_ = now;
      draining_ = true;
    }
    if (poll(out)) return true;
    draining_ = false;
    return false;
  }
  //! Whether poll_rung might find a message (inline, a load or two, no call): false means it
  //! would certainly return false. For the per-transaction look of a worker.
  bool may_have_message() {
    if (watches_.empty()) return draining_ || bell_.rings() != drained_at_;
    // Now and then a full poll regardless: it is what notices a broken channel.
    if ((++looks_ & (kFullPollInterval - 1)) == 0) return true;
    for (const Watch& w : watches_) {
      if (__atomic_load_n(w.word, __ATOMIC_ACQUIRE) == w.expected) return true;
    }
    return false;
  }
  //! Sleeps until a peer rings (or `timeout` passes; spurious returns are possible); returns at
  //! once when poll_rung has not yet drained a ring. For a receiver with nothing else to do.
  void wait_rung(std::chrono::microseconds timeout) {
    if (!watches_.empty()) {
      bell_.wait_unless([this] { return pending(); }, timeout);
      return;
    }
    if (draining_) return;
    bell_.wait(drained_at_, timeout);
  }
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
  //! Creates this endpoint's doorbell; first thing in a derived constructor, before its
  //! channels appear to peers (a peer that finds them finds the doorbell too).
  void create_doorbell(const RunDirectory& directory) {
    bell_ = Doorbell::create(directory, config_.instance_id, name());
    peer_bells_.resize(config_.n_instances);
  }
  //! Maps peer's doorbell, once its channel has been found (so its doorbell exists).
  void attach_doorbell(const RunDirectory& directory, std::uint32_t peer) {
    peer_bells_[peer] = Doorbell::open(directory, peer, name());
  }
  //! Rings dest's doorbell: after every record queued for it.
  void ring_doorbell(std::uint32_t dest) {
    if (watches_.empty()) {
      peer_bells_[dest].ring();
    } else {
      peer_bells_[dest].ring_if_sleeping();
    }
  }
  //! A word that takes the value `expected` when a record arrives on a channel (shm: where the
  //! next record's stamp will appear, and that stamp).
  struct Watch {
    const std::uint64_t* word = nullptr;
    std::uint64_t expected = 0;
  };
  //! Set by a transport whose channels announce a record by writing a word the receiver can
  //! watch (one per inbound channel; the transport keeps them current as it consumes). Then
  //! the channels are the doorbell: may_have_message compares the words (every
  //! kFullPollInterval-th look polls regardless), senders ring only a receiver that sleeps (no
  //! shared-line write per message), and wait_rung asks pending() before it sleeps. Every
  //! endpoint of a mesh is of one transport, so senders and receivers agree.
  std::vector<Watch> watches_;
  //! With watches_: whether a record (or something corrupt) waits, consuming nothing.
  virtual bool pending() { return false; }
  //! See watches_.
  static constexpr std::uint32_t kFullPollInterval = 64;
  //! Unmaps the doorbells and unlinks this endpoint's (cleanup).
  void close_doorbells() noexcept {
    bell_.close();
    for (Doorbell& b : peer_bells_) b.close();
  }
  //! Counts a rejected record.
  void count_malformed(DecodeStatus reason) {
    ++stats_.malformed;
    ++stats_.malformed_by_reason[static_cast<std::size_t>(reason)];
  }
  //! Counts a rejected record from `channel` (named in the message: "ring <path> from peer
  //! instance 3"); with config.strict throws std::runtime_error naming it and the reason.
  void reject_record(DecodeStatus reason, const std::string& channel) {
    count_malformed(reason);
    if (config_.strict) {
      throw std::runtime_error(std::string(name()) + " transport: " + channel + " is malformed: a record failed (" +
                               decode_status_name(reason) + "); it was overwritten, and dropping it would lose a message");
    }
  }

  TransportConfig config_;
  TransportStats stats_;
  std::vector<std::string> warnings_;

 private:
  Doorbell bell_;                   // this endpoint's, rung by its peers
  std::vector<Doorbell> peer_bells_;  // by destination instance (own slot unmapped)
  std::uint32_t drained_at_ = 0;    // bell_'s count when poll_rung last started draining
  std::uint32_t looks_ = 0;         // may_have_message calls (with watches_)
  bool draining_ = true;            // poll until empty first: nothing is known at start
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
