#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "islands/bench/ipc_mechanism.hpp"

namespace islands {

//! Which end of a channel a process holds: the client sends requests and times round trips,
//! the server answers.
enum class IpcSide { client, server };

//! A bidirectional message channel between two processes, built before fork() so that both
//! inherit it; each process then attaches to its side. Messages have a fixed size.
class IpcChannel {
 public:
  virtual ~IpcChannel() = default;
  //! In each process after fork: keeps this side's ends, closes the peer's, and completes any
  //! connection (FIFO opens, TCP accept/connect). Throws std::runtime_error on failure.
  virtual void attach(IpcSide side) = 0;
  //! Sends one message of exactly `n` bytes; throws on error.
  virtual void send(const std::uint8_t* data, std::size_t n) = 0;
  //! Receives one message of exactly `n` bytes. Returns false when the peer finished (end of
  //! stream or stop marker) before a message began; throws on error, on a short or oversized
  //! message, and when the deadline passes.
  virtual bool receive(std::uint8_t* data, std::size_t n) = 0;
  //! Tells the peer that no more messages follow (closes, or sends a stop marker).
  virtual void finish() = 0;
  //! A blocking receive gives up (throws) after this time where the mechanism can wait with
  //! a timeout (message queues, shared-memory ring); descriptor-based channels see the end
  //! of stream instead when the peer is killed.
  void set_deadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }

 protected:
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
};

//! Creates the kernel objects of a channel for `message_bytes`-byte messages (in the calling
//! process, before fork). Throws CapabilityMissing when this machine cannot provide them.
std::unique_ptr<IpcChannel> make_ipc_channel(IpcMechanism mechanism, std::size_t message_bytes);

}  // namespace islands
