#include "islands/bench/ipc_channel.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "islands/bench/bench_errors.hpp"
#include "islands/common/spin_latch.hpp"

namespace islands {

namespace {

using SteadyClock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& what, int err) {
  throw std::runtime_error(what + ": " + std::strerror(err));
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Milliseconds left until `deadline`, for poll(); at least 0, at most a day.
int poll_ms_until(SteadyClock::time_point deadline) {
  const auto left = deadline - SteadyClock::now();
  if (left <= SteadyClock::duration::zero()) return 0;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(left).count() + 1;
  return ms > 86'400'000 ? 86'400'000 : static_cast<int>(ms);
}

// Stream writes and reads loop until the whole message moved: a stream may split it.
void write_all(int fd, bool socket, const std::uint8_t* data, std::size_t n, const char* name) {
  std::size_t done = 0;
  while (done < n) {
    // MSG_NOSIGNAL: a closed peer is an EPIPE error here, not a SIGPIPE that kills Python.
    const ssize_t r = socket ? ::send(fd, data + done, n - done, MSG_NOSIGNAL)
                             : ::write(fd, data + done, n - done);
    if (r < 0) {
      if (errno == EINTR) continue;
      fail(std::string(name) + ": send", errno);
    }
    done += static_cast<std::size_t>(r);
  }
}

bool read_all(int fd, std::uint8_t* data, std::size_t n, const char* name) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t r = ::read(fd, data + done, n - done);
    if (r < 0) {
      if (errno == EINTR) continue;
      fail(std::string(name) + ": receive", errno);
    }
    if (r == 0) {
      if (done == 0) return false;
      throw IntegrityError(std::string(name) + ": the peer closed in the middle of a message (" +
                           std::to_string(done) + " of " + std::to_string(n) + " bytes)");
    }
    done += static_cast<std::size_t>(r);
  }
  return true;
}

void set_nodelay(int fd) {
  const int one = 1;
  if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) fail("tcp: TCP_NODELAY", errno);
}

// A connected AF_UNIX socket pair, stream or seqpacket.
class UnixSocketChannel final : public IpcChannel {
 public:
  explicit UnixSocketChannel(int type) : seqpacket_(type == SOCK_SEQPACKET) {
    if (::socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, pair_) != 0) {
      throw CapabilityMissing(std::string(name()) + ": socketpair: " + std::strerror(errno));
    }
  }
  ~UnixSocketChannel() override {
    close_fd(pair_[0]);
    close_fd(pair_[1]);
  }
  void attach(IpcSide side) override {
    const int mine = side == IpcSide::client ? 0 : 1;
    close_fd(pair_[1 - mine]);
    fd_ = pair_[mine];
  }
  void send(const std::uint8_t* data, std::size_t n) override {
    if (!seqpacket_) return write_all(fd_, true, data, n, name());
    for (;;) {
      const ssize_t r = ::send(fd_, data, n, MSG_NOSIGNAL);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 && errno == EMSGSIZE) {
        throw CapabilityMissing("unix_seqpacket: a " + std::to_string(n) +
                                "-byte message exceeds the socket's limit");
      }
      if (r < 0) fail("unix_seqpacket: send", errno);
      if (static_cast<std::size_t>(r) != n) {
        throw IntegrityError("unix_seqpacket: sent " + std::to_string(r) + " of " + std::to_string(n) + " bytes");
      }
      return;
    }
  }
  bool receive(std::uint8_t* data, std::size_t n) override {
    if (!seqpacket_) return read_all(fd_, data, n, name());
    for (;;) {
      // MSG_TRUNC: the return value is the record's real length, so an oversized record shows.
      const ssize_t r = ::recv(fd_, data, n, MSG_TRUNC);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) fail("unix_seqpacket: receive", errno);
      if (r == 0) return false;  // the peer closed (we never send empty records)
      if (static_cast<std::size_t>(r) != n) {
        throw IntegrityError("unix_seqpacket: received a " + std::to_string(r) + "-byte record, expected " +
                             std::to_string(n));
      }
      return true;
    }
  }
  void finish() override {
    if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
  }

 private:
  const char* name() const { return seqpacket_ ? "unix_seqpacket" : "unix_stream"; }
  bool seqpacket_;
  int pair_[2] = {-1, -1};
  int fd_ = -1;
};

// Two anonymous pipes, one per direction.
class PipeChannel final : public IpcChannel {
 public:
  PipeChannel() {
    if (::pipe2(to_server_, O_CLOEXEC) != 0 || ::pipe2(to_client_, O_CLOEXEC) != 0) {
      throw CapabilityMissing(std::string("pipe: ") + std::strerror(errno));
    }
  }
  ~PipeChannel() override {
    for (int* p : {to_server_, to_client_}) {
      close_fd(p[0]);
      close_fd(p[1]);
    }
  }
  void attach(IpcSide side) override {
    if (side == IpcSide::client) {
      close_fd(to_server_[0]);
      close_fd(to_client_[1]);
      wr_ = to_server_[1];
      rd_ = to_client_[0];
    } else {
      close_fd(to_server_[1]);
      close_fd(to_client_[0]);
      wr_ = to_client_[1];
      rd_ = to_server_[0];
    }
  }
  void send(const std::uint8_t* data, std::size_t n) override { write_all(wr_, false, data, n, "pipe"); }
  bool receive(std::uint8_t* data, std::size_t n) override { return read_all(rd_, data, n, "pipe"); }
  void finish() override {
    for (int* p : {to_server_, to_client_}) {
      if (p[1] == wr_) close_fd(p[1]);
    }
    wr_ = -1;
  }

 private:
  int to_server_[2] = {-1, -1};
  int to_client_[2] = {-1, -1};
  int rd_ = -1, wr_ = -1;
};

// Two named pipes in a private temporary directory. Opening a FIFO blocks until its other end
// opens, so the client opens without blocking and waits with a deadline instead; the server
// writes one byte once both of its ends are open, after which the names are removed.
class FifoChannel final : public IpcChannel {
 public:
  FifoChannel() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/islands-fifo-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw CapabilityMissing("fifo: cannot create a directory for the FIFOs: " + std::string(std::strerror(errno)));
    }
    dir_ = pattern;
    to_server_ = dir_ + "/to_server";
    to_client_ = dir_ + "/to_client";
    if (::mkfifo(to_server_.c_str(), 0600) != 0 || ::mkfifo(to_client_.c_str(), 0600) != 0) {
      const int err = errno;
      remove_names();
      throw CapabilityMissing(std::string("fifo: mkfifo: ") + std::strerror(err));
    }
  }
  ~FifoChannel() override {
    close_fd(rd_);
    close_fd(wr_);
    remove_names();
  }
  void attach(IpcSide side) override {
    if (side == IpcSide::server) {
      // Blocks until the client opens its write end, then finds the client's read end open.
      rd_ = open_or_fail(to_server_, O_RDONLY);
      wr_ = open_or_fail(to_client_, O_WRONLY);
      const std::uint8_t ready = 1;
      write_all(wr_, false, &ready, 1, "fifo");
      return;
    }
    rd_ = open_or_fail(to_client_, O_RDONLY | O_NONBLOCK);
    for (;;) {  // ENXIO: no reader yet
      wr_ = ::open(to_server_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (wr_ >= 0) break;
      if (errno != ENXIO && errno != EINTR) fail("fifo: open " + to_server_, errno);
      if (SteadyClock::now() > deadline_) throw std::runtime_error("fifo: the server never opened its end");
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    pollfd p{rd_, POLLIN, 0};
    const int r = ::poll(&p, 1, poll_ms_until(deadline_));
    std::uint8_t ready = 0;
    if (r != 1 || ::read(rd_, &ready, 1) != 1 || ready != 1) {
      throw std::runtime_error("fifo: the server did not open its ends");
    }
    for (int fd : {rd_, wr_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    remove_names();  // both ends of both FIFOs are open now
  }
  void send(const std::uint8_t* data, std::size_t n) override { write_all(wr_, false, data, n, "fifo"); }
  bool receive(std::uint8_t* data, std::size_t n) override { return read_all(rd_, data, n, "fifo"); }
  void finish() override { close_fd(wr_); }

 private:
  int open_or_fail(const std::string& path, int flags) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) fail("fifo: open " + path, errno);
    return fd;
  }
  void remove_names() {
    if (dir_.empty()) return;
    ::unlink(to_server_.c_str());
    ::unlink(to_client_.c_str());
    ::rmdir(dir_.c_str());
    dir_.clear();
  }
  std::string dir_, to_server_, to_client_;
  int rd_ = -1, wr_ = -1;
};

// TCP on the loopback interface: the client listens (before fork) and accepts, the server
// connects; Nagle is off so each small message leaves at once.
class TcpChannel final : public IpcChannel {
 public:
  TcpChannel() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw CapabilityMissing(std::string("tcp: socket: ") + std::strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 1) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      const int err = errno;
      close_fd(listen_fd_);
      throw CapabilityMissing(std::string("tcp: no loopback listener: ") + std::strerror(err));
    }
    port_ = addr.sin_port;
  }
  ~TcpChannel() override {
    close_fd(listen_fd_);
    close_fd(fd_);
  }
  void attach(IpcSide side) override {
    if (side == IpcSide::server) {
      close_fd(listen_fd_);
      fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd_ < 0) fail("tcp: socket", errno);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = port_;
      if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) fail("tcp: connect", errno);
    } else {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, poll_ms_until(deadline_)) != 1) throw std::runtime_error("tcp: the server never connected");
      fd_ = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd_ < 0) fail("tcp: accept", errno);
      close_fd(listen_fd_);
    }
    set_nodelay(fd_);
  }
  void send(const std::uint8_t* data, std::size_t n) override { write_all(fd_, true, data, n, "tcp"); }
  bool receive(std::uint8_t* data, std::size_t n) override { return read_all(fd_, data, n, "tcp"); }
  void finish() override {
    if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
  }

 private:
  int listen_fd_ = -1;
  int fd_ = -1;
  in_port_t port_ = 0;
};

// Two POSIX message queues, one per direction. They are unlinked as soon as they are open
// (the descriptors survive fork), so nothing is left behind in /dev/mqueue. A zero-length
// message is the stop marker.
class MqueueChannel final : public IpcChannel {
 public:
  explicit MqueueChannel(std::size_t message_bytes) {
    static std::atomic<unsigned> serial{0};
    const std::string base = "/islands-bench-" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
    mq_attr attr{};
    attr.mq_maxmsg = 1;  // a ping-pong never has more than one message in flight per direction
    attr.mq_msgsize = static_cast<long>(message_bytes);
    for (int i = 0; i < 2; ++i) {
      const std::string name = base + (i == 0 ? "-to-server" : "-to-client");
      q_[i] = ::mq_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &attr);
      if (q_[i] == static_cast<mqd_t>(-1)) {
        const int err = errno;
        close_queues();
        if (err == EINVAL) {
          throw CapabilityMissing("mqueue: " + std::to_string(message_bytes) +
                                  "-byte messages exceed this machine's limit (fs.mqueue.msgsize_max)");
        }
        throw CapabilityMissing(std::string("mqueue: mq_open: ") + std::strerror(err));
      }
      ::mq_unlink(name.c_str());
    }
  }
  ~MqueueChannel() override { close_queues(); }
  void attach(IpcSide side) override {
    out_ = q_[side == IpcSide::client ? 0 : 1];
    in_ = q_[side == IpcSide::client ? 1 : 0];
    // The queues time out against CLOCK_REALTIME: translate the steady deadline once.
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    const auto left = deadline_ == SteadyClock::time_point::max()
                          ? std::chrono::nanoseconds(std::chrono::hours(24 * 365))
                          : std::chrono::duration_cast<std::chrono::nanoseconds>(deadline_ - SteadyClock::now());
    const long long ns = static_cast<long long>(now.tv_nsec) + std::max<long long>(left.count(), 0);
    until_.tv_sec = now.tv_sec + static_cast<time_t>(ns / 1'000'000'000);
    until_.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  }
  void send(const std::uint8_t* data, std::size_t n) override {
    while (::mq_timedsend(out_, reinterpret_cast<const char*>(data), n, 0, &until_) != 0) {
      if (errno == EINTR) continue;
      if (errno == ETIMEDOUT) throw std::runtime_error("mqueue: send timed out");
      fail("mqueue: send", errno);
    }
  }
  bool receive(std::uint8_t* data, std::size_t n) override {
    for (;;) {
      const ssize_t r = ::mq_timedreceive(in_, reinterpret_cast<char*>(data), n, nullptr, &until_);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 && errno == ETIMEDOUT) throw std::runtime_error("mqueue: no message before the deadline");
      if (r < 0) fail("mqueue: receive", errno);
      if (r == 0) return false;  // stop marker
      if (static_cast<std::size_t>(r) != n) {
        throw IntegrityError("mqueue: received a " + std::to_string(r) + "-byte message, expected " +
                             std::to_string(n));
      }
      return true;
    }
  }
  void finish() override {
    const char nothing = 0;
    while (::mq_timedsend(out_, &nothing, 0, 0, &until_) != 0 && errno == EINTR) {
    }
  }

 private:
  void close_queues() {
    for (mqd_t& q : q_) {
      if (q != static_cast<mqd_t>(-1)) ::mq_close(q);
      q = static_cast<mqd_t>(-1);
    }
  }
  mqd_t q_[2] = {static_cast<mqd_t>(-1), static_cast<mqd_t>(-1)};
  mqd_t out_ = static_cast<mqd_t>(-1), in_ = static_cast<mqd_t>(-1);
  timespec until_{};
};

// Single-producer single-consumer ring in memory shared by both processes (MAP_SHARED,
// inherited across fork). Producer and consumer indexes live on separate cache lines; both
// sides busy-wait (PAUSE, then yield if the wait grows long, e.g. both on one CPU).
struct alignas(64) ShmRing {
  static constexpr std::uint64_t kSlots = 4;
  std::atomic<std::uint64_t> tail{0};  // written by the producer
  alignas(64) std::atomic<std::uint64_t> head{0};  // written by the consumer
  alignas(64) std::atomic<std::uint32_t> closed{0};  // set by the producer when it finishes
  // kSlots slots of slot_bytes each follow the header, from the next cache line on.
  std::uint8_t* slots() { return reinterpret_cast<std::uint8_t*>(this) + sizeof(ShmRing); }
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "process-shared atomics must be lock-free");

class ShmRingChannel final : public IpcChannel {
 public:
  explicit ShmRingChannel(std::size_t message_bytes)
      : slot_bytes_((message_bytes + 63) / 64 * 64),
        ring_bytes_((sizeof(ShmRing) + ShmRing::kSlots * slot_bytes_ + 63) / 64 * 64) {
    map_bytes_ = 2 * ring_bytes_;
    void* p = ::mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw CapabilityMissing(std::string("shm_ring: mmap: ") + std::strerror(errno));
    base_ = static_cast<std::uint8_t*>(p);
    new (base_) ShmRing();
    new (base_ + ring_bytes_) ShmRing();
  }
  ~ShmRingChannel() override {
    if (base_) ::munmap(base_, map_bytes_);
  }
  void attach(IpcSide side) override {
    ShmRing* to_server = reinterpret_cast<ShmRing*>(base_);
    ShmRing* to_client = reinterpret_cast<ShmRing*>(base_ + ring_bytes_);
    out_ = side == IpcSide::client ? to_server : to_client;
    in_ = side == IpcSide::client ? to_client : to_server;
  }
  void send(const std::uint8_t* data, std::size_t n) override {
    const std::uint64_t tail = out_->tail.load(std::memory_order_relaxed);
    Backoff backoff;
    for (unsigned spins = 0; tail - out_->head.load(std::memory_order_acquire) == ShmRing::kSlots; ++spins) {
      if ((spins & 1023) == 1023 && SteadyClock::now() > deadline_) {
        throw std::runtime_error("shm_ring: the peer stopped consuming");
      }
      backoff.pause();
    }
    std::memcpy(out_->slots() + (tail % ShmRing::kSlots) * slot_bytes_, data, n);
    out_->tail.store(tail + 1, std::memory_order_release);
  }
  bool receive(std::uint8_t* data, std::size_t n) override {
    const std::uint64_t head = in_->head.load(std::memory_order_relaxed);
    Backoff backoff;
    for (unsigned spins = 0; in_->tail.load(std::memory_order_acquire) == head; ++spins) {
      if (in_->closed.load(std::memory_order_acquire)) {
        // A message published just before the close still counts: look once more.
        if (in_->tail.load(std::memory_order_acquire) != head) break;
        return false;
      }
      if ((spins & 1023) == 1023 && SteadyClock::now() > deadline_) {
        throw std::runtime_error("shm_ring: no message before the deadline");
      }
      backoff.pause();
    }
    std::memcpy(data, in_->slots() + (head % ShmRing::kSlots) * slot_bytes_, n);
    in_->head.store(head + 1, std::memory_order_release);
    return true;
  }
  void finish() override { out_->closed.store(1, std::memory_order_release); }

 private:
  std::size_t slot_bytes_;
  std::size_t ring_bytes_;
  std::size_t map_bytes_ = 0;
  std::uint8_t* base_ = nullptr;
  ShmRing* out_ = nullptr;
  ShmRing* in_ = nullptr;
};

}  // namespace

std::unique_ptr<IpcChannel> make_ipc_channel(IpcMechanism mechanism, std::size_t message_bytes) {
  switch (mechanism) {
    case IpcMechanism::unix_stream: return std::make_unique<UnixSocketChannel>(SOCK_STREAM);
    case IpcMechanism::unix_seqpacket: return std::make_unique<UnixSocketChannel>(SOCK_SEQPACKET);
    case IpcMechanism::pipe: return std::make_unique<PipeChannel>();
    case IpcMechanism::fifo: return std::make_unique<FifoChannel>();
    case IpcMechanism::tcp: return std::make_unique<TcpChannel>();
    case IpcMechanism::mqueue: return std::make_unique<MqueueChannel>(message_bytes);
    case IpcMechanism::shm_ring: return std::make_unique<ShmRingChannel>(message_bytes);
  }
  throw std::invalid_argument("mechanism: unknown messaging mechanism");
}

}  // namespace islands
