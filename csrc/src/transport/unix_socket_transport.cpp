#include "islands/transport/unix_socket_transport.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "islands/common/check.hpp"
#include "islands/transport/deadline.hpp"

namespace islands {

namespace {

std::string system_error(const std::string& what, const std::string& path) {
  return "unix transport: " + what + " " + path + ": " + std::strerror(errno);
}

sockaddr_un socket_address(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  // sun_path is a fixed 108 bytes; a longer path would be silently cut, so refuse it.
  if (path.size() >= sizeof(address.sun_path)) {
    throw std::invalid_argument("unix transport: socket path " + path + " is " +
                                std::to_string(path.size()) + " bytes, over the " +
                                std::to_string(sizeof(address.sun_path) - 1) +
                                "-byte limit of unix sockets (use a shorter directory)");
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

}  // namespace

std::string UnixSocketTransport::socket_name(std::uint32_t instance) {
  return "inst-" + std::to_string(instance) + ".sock";
}

UnixSocketTransport::UnixSocketTransport(const TransportConfig& config)
    : Transport(config),
      directory_(config_.directory),
      socket_path_(directory_.file(socket_name(config_.instance_id))),
      outbound_(config_.n_instances, -1),
      peer_seen_(config_.n_instances, false),
      buffer_(config_.max_message_bytes) {
  const sockaddr_un address = socket_address(socket_path_);
  try {
    create_doorbell(directory_);
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw std::runtime_error(system_error("epoll_create1 for", socket_path_));
    listen_fd_ = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw std::runtime_error(system_error("socket for", socket_path_));
    if (::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
      if (errno == EADDRINUSE) {
        throw std::runtime_error("unix transport: " + socket_path_ +
                                 " already exists: another instance " +
                                 std::to_string(config_.instance_id) +
                                 " uses this directory, or it is a stale run directory");
      }
      throw std::runtime_error(system_error("cannot bind", socket_path_));
    }
    bound_ = true;
    // bind honours the umask only; the directory is 0700 already, the file is made so too.
    if (::chmod(socket_path_.c_str(), 0600) != 0) {
      throw std::runtime_error(system_error("cannot chmod", socket_path_));
    }
    if (::listen(listen_fd_, SOMAXCONN) != 0) {
      throw std::runtime_error(system_error("cannot listen on", socket_path_));
    }
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = 0;  // 0 is the listener; accepted connection in slot s is s + 1
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &event) != 0) {
      throw std::runtime_error(system_error("epoll_ctl for", socket_path_));
    }
    for (std::uint32_t j = 0; j < config_.n_instances; ++j) {
      if (j == config_.instance_id) continue;
      outbound_[j] = connect_to(j);
      attach_doorbell(directory_, j);  // j listens, so it made its doorbell before
    }
  } catch (...) {
    // No destructor after a throwing constructor: close and unlink here, so a failed set-up
    // leaves no socket file behind.
    cleanup();
    throw;
  }
}

UnixSocketTransport::~UnixSocketTransport() { cleanup(); }

int UnixSocketTransport::connect_to(std::uint32_t peer) {
  const std::string path = directory_.file(socket_name(peer));
  const sockaddr_un address = socket_address(path);
  Deadline deadline(config_.attach_timeout_ms);
  int fd = -1;
  for (;;) {
    fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error(system_error("socket for", path));
    // The sender's buffer bounds what may be in flight on this connection (unix sockets
    // charge queued records to the sender).
    const int requested = static_cast<int>(config_.ring_bytes);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &requested, sizeof requested);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) break;
    const int error = errno;
    ::close(fd);
    fd = -1;
    // ENOENT: the peer has not bound yet; ECONNREFUSED: bound but not listening yet;
    // EAGAIN: its backlog is full for a moment. All mean "not yet", so wait.
    if (error != ENOENT && error != ECONNREFUSED && error != EAGAIN && error != EINTR) {
      errno = error;
      throw std::runtime_error(system_error("cannot connect to", path));
    }
    if (deadline.expired()) {
      throw std::runtime_error(
          "unix transport: instance " + std::to_string(config_.instance_id) + " waited " +
          std::to_string(config_.attach_timeout_ms) + " ms for peer instance " +
          std::to_string(peer) + " to listen on " + path + " (is instance " +
          std::to_string(peer) + " running with the same directory and n_instances?)");
    }
    deadline.sleep();
  }
  try {
    int sndbuf = 0;
    socklen_t len = sizeof sndbuf;
    ::getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len);
    // The kernel refuses (EMSGSIZE) a record longer than the send buffer less 32 bytes, and
    // caps the buffer at net.core.wmem_max: find that out now, not mid-run.
    if (static_cast<std::size_t>(sndbuf) < config_.max_message_bytes + 32) {
      throw std::runtime_error("unix transport: socket send buffer of " + std::to_string(sndbuf) +
                               " bytes cannot carry max_message_bytes = " +
                               std::to_string(config_.max_message_bytes) +
                               " (raise ring_bytes, or net.core.wmem_max)");
    }
    if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
      throw std::runtime_error(system_error("cannot make non-blocking the connection to", path));
    }
    std::uint8_t hello[kMessageHeaderBytes];
    MessageHeader header;
    header.type = MessageType::hello;
    header.source = config_.instance_id;
    encode_header(header, hello);
    // A fresh connection's buffer is empty, so the hello always fits.
    if (::send(fd, hello, sizeof hello, MSG_NOSIGNAL | MSG_DONTWAIT) !=
        static_cast<ssize_t>(sizeof hello)) {
      throw std::runtime_error(system_error("cannot send hello on the connection to", path));
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  return fd;
}

void UnixSocketTransport::accept_pending() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN: no more pending; anything else: try again on the next poll
    }
    std::size_t slot = 0;
    while (slot < inbound_.size() && inbound_[slot].fd >= 0) ++slot;
    if (slot == inbound_.size()) inbound_.emplace_back();
    inbound_[slot] = Inbound{fd, -1};
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.u64 = slot + 1;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
      close_inbound(slot, false);
      continue;
    }
    // Its hello (and maybe more) is likely there already; read it without another epoll round.
    ready_.push_back(slot);
  }
}

void UnixSocketTransport::close_inbound(std::size_t slot, bool count_disconnect) {
  Inbound& c = inbound_[slot];
  if (c.fd < 0) return;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
  ::close(c.fd);
  c.fd = -1;
  c.peer = -1;
  if (count_disconnect) ++stats_.disconnects;
}

UnixSocketTransport::Receive UnixSocketTransport::receive(std::size_t slot, Message& out) {
  Inbound& c = inbound_[slot];
  if (c.fd < 0) return Receive::drained;
  ssize_t got = -1;
  do {
    // MSG_TRUNC makes recv return the record's true length even when it is longer than the
    // buffer, so an oversized record is measured and dropped whole instead of read in part.
    got = ::recv(c.fd, buffer_.data(), buffer_.size(), MSG_DONTWAIT | MSG_TRUNC);
  } while (got < 0 && errno == EINTR);
  if (got < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Receive::drained;
    close_inbound(slot, true);  // ECONNRESET and the like: the peer is gone
    return Receive::drained;
  }
  if (got == 0) {
    pollfd p{c.fd, POLLRDHUP, 0};
    if (::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP)) != 0) {
      close_inbound(slot, true);
      return Receive::drained;
    }
  }
  const auto size = static_cast<std::size_t>(got);
  DecodeStatus status = size > buffer_.size()
                            ? DecodeStatus::too_long
                            : decode(buffer_.data(), size, config_.max_message_bytes, out);
  if (c.peer < 0) {
    // An unidentified connection: only a hello from a peer not yet seen makes it one of ours.
    if (status == DecodeStatus::ok && out.type == MessageType::hello &&
        out.source < config_.n_instances && out.source != config_.instance_id &&
        !peer_seen_[out.source]) {
      c.peer = out.source;
      peer_seen_[out.source] = true;
      return Receive::more;
    }
    reject_record(status == DecodeStatus::ok ? DecodeStatus::protocol : status, "an unidentified connection");
    // Without a hello its records cannot be attributed to a peer, so drop the connection.
    close_inbound(slot, false);
    return Receive::drained;
  }
  if (status == DecodeStatus::ok) {
    if (out.source != static_cast<std::uint64_t>(c.peer)) {
      status = DecodeStatus::wrong_source;
    } else if (out.type == MessageType::hello) {
      status = DecodeStatus::protocol;
    }
  }
  if (status != DecodeStatus::ok) {
    // Record boundaries survive a bad record, so dropping it loses nothing else.
    reject_record(status, "the socket from peer instance " + std::to_string(c.peer));
    return Receive::more;
  }
  ++stats_.messages_received;
  stats_.bytes_received += size;
  return Receive::message;
}

bool UnixSocketTransport::poll(Message& out) {
  if (closed_) throw std::logic_error("unix transport: poll after cleanup");
  bool waited = false;
  for (;;) {
    // Drain connections epoll already reported before asking it again: in steady state a
    // message costs one recv, not an epoll_wait and a recv.
    while (!ready_.empty()) {
      if (ready_cursor_ >= ready_.size()) ready_cursor_ = 0;
      const std::size_t slot = ready_[ready_cursor_];
      const Receive r = receive(slot, out);
      if (r == Receive::message) {
        ++ready_cursor_;  // the next poll starts at the next connection (fairness)
        return true;
      }
      if (r == Receive::drained) {
        ready_[ready_cursor_] = ready_.back();
        ready_.pop_back();
      }
    }
    if (waited) return false;
    waited = true;
    epoll_event events[64];
    const int n = ::epoll_wait(epoll_fd_, events, 64, 0);
    if (n <= 0) return false;
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == 0) {
        accept_pending();
      } else {
        ready_.push_back(static_cast<std::size_t>(events[i].data.u64 - 1));
      }
    }
  }
}

bool UnixSocketTransport::send_record(std::uint32_t dest, iovec* parts, int n_parts,
                                      std::size_t size) {
  if (closed_) throw std::logic_error("unix transport: send after cleanup");
  msghdr header{};
  header.msg_iov = parts;
  header.msg_iovlen = static_cast<std::size_t>(n_parts);
  for (;;) {
    // MSG_NOSIGNAL: a closed peer is an error to report, not a SIGPIPE that kills us.
    const ssize_t sent = ::sendmsg(outbound_[dest], &header, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent >= 0) {
      ISLANDS_CHECK(static_cast<std::size_t>(sent) == size, "seqpacket sent part of a record");
      return true;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
      ++stats_.send_full;
      return false;
    }
    if (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN) {
      throw std::runtime_error("unix transport: peer instance " + std::to_string(dest) +
                               " has closed its endpoint (" +
                               directory_.file(socket_name(dest)) + ")");
    }
    throw std::runtime_error("unix transport: sending " + std::to_string(size) +
                             " bytes to peer instance " + std::to_string(dest) + ": " +
                             std::strerror(errno));
  }
}

bool UnixSocketTransport::send(std::uint32_t dest, const Message& message) {
  const std::size_t size = kMessageHeaderBytes + message.payload.size();
  check_destination(dest, size, "unix send");
  if (message.type == MessageType::hello) {
    throw std::invalid_argument("unix send: hello is reserved for the transport's handshake");
  }
  std::uint8_t header[kMessageHeaderBytes];
  encode_header(header_of(message, config_.instance_id), header);
  // Gathered into one record by the kernel: no staging copy of the payload.
  iovec parts[2] = {{header, sizeof header},
                    {const_cast<std::uint8_t*>(message.payload.data()), message.payload.size()}};
  if (!send_record(dest, parts, message.payload.empty() ? 1 : 2, size)) return false;
  ring_doorbell(dest);  // after the record is queued: see doorbell.hpp
  ++stats_.messages_sent;
  stats_.bytes_sent += size;
  return true;
}

bool UnixSocketTransport::send_raw(std::uint32_t dest, const std::uint8_t* data,
                                   std::size_t size) {
  check_destination(dest, size, "unix send_raw");
  iovec part{const_cast<std::uint8_t*>(data), size};
  if (!send_record(dest, &part, 1, size)) return false;
  ring_doorbell(dest);
  ++stats_.raw_records_sent;
  stats_.bytes_sent += size;
  return true;
}

void UnixSocketTransport::cleanup() {
  if (closed_) return;
  closed_ = true;
  // Unlink first: from here on no new peer can find this endpoint.
  if (bound_) ::unlink(socket_path_.c_str());
  bound_ = false;
  for (std::size_t s = 0; s < inbound_.size(); ++s) close_inbound(s, false);
  for (int& fd : outbound_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  listen_fd_ = epoll_fd_ = -1;
  ready_.clear();
  close_doorbells();
}

std::unique_ptr<Transport> make_unix_transport(const TransportConfig& config) {
  return std::make_unique<UnixSocketTransport>(config);
}

}  // namespace islands
