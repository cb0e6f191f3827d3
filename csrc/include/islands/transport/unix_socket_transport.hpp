#pragma once
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "islands/transport/run_directory.hpp"
#include "islands/transport/transport.hpp"

namespace islands {

//! Unix domain socket transport (the papers' default), over SOCK_SEQPACKET.
//!
//! SEQPACKET rather than a stream: the kernel keeps record boundaries and sends each record
//! whole or not at all, so one message is one record, there is no framing or partial
//! read/write state to keep, and a malformed record is dropped without losing sync with the
//! good ones after it; it is still connection-oriented, reliable and ordered.
//!
//! Set-up: instance i binds and listens on `<directory>/inst-<i>.sock` (chmod 0600; the
//! directory is 0700 anyway), then connects to every peer's socket, retrying until
//! attach_timeout_ms while it does not exist or does not listen yet, and sends a hello naming
//! itself on each connection. So every ordered pair has its own connection: i sends on the
//! ones it opened and receives on the ones it accepted. Connections are accepted lazily in
//! poll; the first record on an accepted connection must be a hello from a peer not yet seen,
//! else the record is counted and the connection closed (a stranger, or a second connection
//! claiming the same peer). After the hello, a record whose source is not that peer counts as
//! wrong_source. A record is received into a buffer of max_message_bytes with MSG_TRUNC, so
//! an oversized record is measured, counted as too_long and dropped, never read past.
//!
//! send never blocks: false when the connection's socket buffer (SO_SNDBUF, asked for as
//! ring_bytes) is full; std::runtime_error when the peer has closed (EPIPE, no SIGPIPE).
//! An accepted connection that the peer closes is counted in disconnects. A zero-length
//! record cannot be told from end-of-file by recv alone: it counts as truncated unless the
//! peer has hung up, in which case the connection is closed.
class UnixSocketTransport final : public Transport {
 public:
  //! Binds this instance's socket and connects to every peer (see the class comment).
  explicit UnixSocketTransport(const TransportConfig& config);
  //! Calls cleanup.
  ~UnixSocketTransport() override;

  //! Transport::send (see the class comment for when it is full or fails).
  bool send(std::uint32_t dest, const Message& message) override;
  //! Transport::send_raw.
  bool send_raw(std::uint32_t dest, const std::uint8_t* data, std::size_t size) override;
  //! Transport::poll.
  bool poll(Message& out) override;
  //! Transport::cleanup; also run by the destructor and by a constructor that fails.
  void cleanup() override;
  //! "unix".
  const char* name() const override { return "unix"; }

  //! File name (in the run directory) of instance's listening socket.
  static std::string socket_name(std::uint32_t instance);

 private:
  enum class Receive { message, more, drained };

  struct Inbound {
    int fd = -1;
    std::int64_t peer = -1;  // -1 until the connection's hello names it
  };

  int connect_to(std::uint32_t peer);
  void accept_pending();
  Receive receive(std::size_t slot, Message& out);
  void close_inbound(std::size_t slot, bool count_disconnect);
  bool send_record(std::uint32_t dest, iovec* parts, int n_parts, std::size_t size);

  RunDirectory directory_;
  std::string socket_path_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  bool bound_ = false;  // this endpoint created socket_path_ (and so unlinks it)
  bool closed_ = false;
  std::vector<int> outbound_;              // by destination instance (own slot -1)
  std::vector<Inbound> inbound_;           // accepted connections, by slot
  std::vector<bool> peer_seen_;            // a hello from that instance has been accepted
  std::vector<std::size_t> ready_;         // slots epoll reported readable, not yet drained
  std::size_t ready_cursor_ = 0;           // round-robin position in ready_
  std::vector<std::uint8_t> buffer_;       // one received record
};

//! Factory for the registry: a UnixSocketTransport.
std::unique_ptr<Transport> make_unix_transport(const TransportConfig& config);

}  // namespace islands
