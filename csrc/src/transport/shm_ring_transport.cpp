#include "islands/transport/shm_ring_transport.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "islands/transport/deadline.hpp"

namespace islands {

namespace {

std::string system_error(const std::string& what, const std::string& path) {
  return "shm transport: " + what + " " + path + ": " + std::strerror(errno);
}

// Closes a descriptor on every path out of a set-up step, thrown or not.
struct FdGuard {
  int fd = -1;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string ShmRingTransport::ring_name(std::uint32_t src, std::uint32_t dst) {
  return "ring-" + std::to_string(src) + "-to-" + std::to_string(dst);
}

ShmRingTransport::ShmRingTransport(const TransportConfig& config)
    : Transport(config),
      directory_(config_.directory),
      inbound_(config_.n_instances),
      outbound_(config_.n_instances) {
  if (!directory_.in_memory()) {
    // Works, but the kernel periodically writes dirty shared file pages back to disk, which
    // adds I/O and stalls to what should be a memory-only channel.
    warnings_.push_back("shm transport: ring files in " + directory_.path() + " are on " +
                        directory_.filesystem() +
                        ", not tmpfs; ring pages may be written back to disk (use a run "
                        "directory under /dev/shm)");
  }
  const std::uint32_t me = config_.instance_id;
  try {
    create_doorbell(directory_);
    // All inbound rings first: creating never waits, so every instance publishes its side
    // before any of them starts waiting for the others, and no order of start-up deadlocks.
    for (std::uint32_t j = 0; j < config_.n_instances; ++j) {
      if (j != me) inbound_[j] = create_inbound(j);
    }
    // Up to kMaxWatchedRings peers a look compares each ring's next-record word (no shared
    // write per message); past them a look would load a line per peer on every transaction (191
    // at 192 instances), so senders ring the receiver's doorbell and a look is one load.
    if (config_.n_instances - 1 <= kMaxWatchedRings) {
      watches_.resize(config_.n_instances - 1);
      refresh_watches();
    }
    for (std::uint32_t j = 0; j < config_.n_instances; ++j) {
      if (j == me) continue;
      outbound_[j] = attach_outbound(j);
      attach_doorbell(directory_, j);  // j made its rings, so its doorbell before them
    }
  } catch (...) {
    // The destructor does not run after a throwing constructor, so undo here: no file of this
    // endpoint may outlive a failed set-up.
    cleanup();
    throw;
  }
}

ShmRingTransport::~ShmRingTransport() { cleanup(); }

ShmRingTransport::Mapping ShmRingTransport::create_inbound(std::uint32_t src) {
  const std::string name = ring_name(src, config_.instance_id);
  const std::string path = directory_.file(name);
  const std::string temp = directory_.file("." + name + ".tmp");
  const std::size_t bytes = SpscRing::region_bytes(config_.ring_bytes);

  FdGuard fd;
  fd.fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd.fd < 0) {
    if (errno == EEXIST) {
      throw std::runtime_error("shm transport: " + temp + " already exists: another instance " +
                               std::to_string(config_.instance_id) +
                               " uses this directory, or it is a stale run directory");
    }
    throw std::runtime_error(system_error("cannot create", temp));
  }
  Mapping m;
  try {
    // The umask can only remove bits from 0600, but say it explicitly all the same.
    if (::fchmod(fd.fd, 0600) != 0) throw std::runtime_error(system_error("cannot chmod", temp));
    if (::ftruncate(fd.fd, static_cast<off_t>(bytes)) != 0) {
      throw std::runtime_error(system_error("cannot size", temp));
    }
    // MAP_POPULATE takes the page faults now, at set-up, instead of in the measured window.
    void* address =
        ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.fd, 0);
    if (address == MAP_FAILED) throw std::runtime_error(system_error("cannot map", temp));
    m.address = address;
    m.bytes = bytes;
    m.ring = SpscRing::create(address, config_.ring_bytes);
    m.ring.control().consumer_pid.store(static_cast<std::int32_t>(::getpid()),
                                        std::memory_order_release);
    // link fails rather than replaces when the name exists, and the ring appears under its
    // real name only now that it is initialised.
    if (::link(temp.c_str(), path.c_str()) != 0) {
      if (errno == EEXIST) {
        throw std::runtime_error("shm transport: " + path + " already exists: another instance " +
                                 std::to_string(config_.instance_id) +
                                 " uses this directory, or it is a stale run directory");
      }
      throw std::runtime_error(system_error("cannot publish", path));
    }
    m.path = path;
    m.created = true;
  } catch (...) {
    if (m.address != nullptr) ::munmap(m.address, m.bytes);
    ::unlink(temp.c_str());
    throw;
  }
  ::unlink(temp.c_str());
  return m;
}

ShmRingTransport::Mapping ShmRingTransport::attach_outbound(std::uint32_t dst) {
  const std::string path = directory_.file(ring_name(config_.instance_id, dst));
  FdGuard fd;
  Deadline deadline(config_.attach_timeout_ms);
  for (;;) {
    fd.fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd.fd >= 0) break;
    if (errno != ENOENT) throw std::runtime_error(system_error("cannot open", path));
    if (deadline.expired()) {
      throw std::runtime_error(
          "shm transport: instance " + std::to_string(config_.instance_id) + " waited " +
          std::to_string(config_.attach_timeout_ms) + " ms for peer instance " +
          std::to_string(dst) + " to create " + path + " (is instance " + std::to_string(dst) +
          " running with the same directory and n_instances?)");
    }
    deadline.sleep();
  }
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) throw std::runtime_error(system_error("cannot stat", path));
  if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
    throw std::runtime_error("shm transport: " + path +
                             " is not a regular owner-only file of this user; refusing to map it");
  }
  Mapping m;
  m.bytes = static_cast<std::size_t>(st.st_size);
  void* address =
      ::mmap(nullptr, m.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.fd, 0);
  if (address == MAP_FAILED) throw std::runtime_error(system_error("cannot map", path));
  m.address = address;
  m.path = path;
  std::string error;
  m.ring = SpscRing::attach(address, m.bytes, error);
  std::string problem;
  if (!m.ring.valid()) {
    problem = error;
  } else if (m.ring.max_length() < config_.max_message_bytes) {
    problem = "its ring holds records of at most " + std::to_string(m.ring.max_length()) +
              " bytes, below this instance's max_message_bytes = " +
              std::to_string(config_.max_message_bytes);
  } else {
    // Exactly one producer per ring: a second one would break the single-producer rule
    // silently, so claim the ring and refuse if someone already has.
    std::int32_t expected = 0;
    if (!m.ring.control().producer_pid.compare_exchange_strong(
            expected, static_cast<std::int32_t>(::getpid()), std::memory_order_acq_rel)) {
      problem = "it already has a producer (pid " + std::to_string(expected) +
                "): two instances with id " + std::to_string(config_.instance_id) + "?";
    }
  }
  if (!problem.empty()) {
    ::munmap(address, m.bytes);
    throw std::runtime_error("shm transport: ring " + path + " of peer instance " +
                             std::to_string(dst) + ": " + problem);
  }
  return m;
}

bool ShmRingTransport::push(std::uint32_t dest, const void* first, std::size_t first_len,
                            const void* second, std::size_t second_len) {
  if (closed_) throw std::logic_error("shm transport: send after cleanup");
  SpscRing& ring = outbound_[dest].ring;
  SpscRingControl& control = ring.control();
  // A line nobody writes until close, so reading it on every send is an L1 hit.
  if (control.consumer_closed.load(std::memory_order_acquire) != 0) {
    throw std::runtime_error("shm transport: peer instance " + std::to_string(dest) +
                             " has closed its endpoint (" + outbound_[dest].path + ")");
  }
  if (ring.try_push(first, first_len, second, second_len)) {
    ring_doorbell(dest);  // after the record is published: see doorbell.hpp
    return true;
  }
  // Full. A head no consumer can publish (scribbled shared memory) would keep it full for
  // ever: name the ring instead of stalling.
  if (ring.head_impossible()) {
    throw std::runtime_error("shm transport: ring " + outbound_[dest].path + " to peer instance " +
                             std::to_string(dest) + " is malformed: its head (" +
                             std::to_string(ring.seen_head()) +
                             ") is not within one ring of what this instance wrote (" +
                             std::to_string(ring.own_tail()) +
                             "); its shared memory was overwritten");
  }
  // A consumer that died without cleanup never drains, so look (once per refused
  // send, off the fast path) whether its process still exists.
  const std::int32_t pid = control.consumer_pid.load(std::memory_order_acquire);
  if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
    throw std::runtime_error("shm transport: peer instance " + std::to_string(dest) + " (pid " +
                             std::to_string(pid) + ") has exited; its ring is full");
  }
  ++stats_.send_full;
  return false;
}

bool ShmRingTransport::send(std::uint32_t dest, const Message& message) {
  const std::size_t size = kMessageHeaderBytes + message.payload.size();
  check_destination(dest, size, "shm send");
  if (message.type == MessageType::hello) {
    throw std::invalid_argument("shm send: hello is reserved for the transport's handshake");
  }
  std::uint8_t header[kMessageHeaderBytes];
  encode_header(header_of(message, config_.instance_id), header);
  // Header and payload go into the ring straight from where they are: no staging copy.
  if (!push(dest, header, sizeof header, message.payload.data(), message.payload.size())) {
    return false;
  }
  ++stats_.messages_sent;
  stats_.bytes_sent += size;
  return true;
}

bool ShmRingTransport::send_raw(std::uint32_t dest, const std::uint8_t* data, std::size_t size) {
  check_destination(dest, size, "shm send_raw");
  if (!push(dest, data, size, nullptr, 0)) return false;
  ++stats_.raw_records_sent;
  stats_.bytes_sent += size;
  return true;
}

bool ShmRingTransport::poll(Message& out) {
  if (closed_) throw std::logic_error("shm transport: poll after cleanup");
  const std::uint32_t n = config_.n_instances;
  const std::uint32_t me = config_.instance_id;
  std::uint32_t src = next_source_;
  // Counted round the ring without a division: this loop is what an idle instance spins on.
  for (std::uint32_t k = 0; k < n; ++k, src = src + 1 == n ? 0 : src + 1) {
    if (src == me) continue;
    SpscRing& ring = inbound_[src].ring;
    for (;;) {
      std::size_t length = 0;
      const RingPeek peek = ring.peek(length);
      if (peek == RingPeek::empty) break;
      if (peek == RingPeek::corrupt) {
        if (ring.tail_impossible()) {
          // Not a broken record but a broken ring: resynchronising would jump past everything
          // the producer writes next and stall the run, so name the ring instead.
          throw std::runtime_error(
              "shm transport: ring " + inbound_[src].path + " from peer instance " +
              std::to_string(src) + " is malformed: its tail (" +
              std::to_string(ring.seen_tail()) + ") is more than the ring's " +
              std::to_string(ring.capacity()) + " bytes ahead of what this instance read (" +
              std::to_string(ring.own_head()) + "); its shared memory was overwritten");
        }
        // The frame cannot be trusted, so neither can where the next record starts: drop all
        // that is published and pick up cleanly from what the producer writes next.
        reject_record(DecodeStatus::bad_frame, inbound_name(src));
        ring.discard_all();
        break;
      }
      // The header is copied out and validated before its length decides anything.
      std::uint8_t header_bytes[kMessageHeaderBytes];
      const std::size_t header_length = length < kMessageHeaderBytes ? length : kMessageHeaderBytes;
      ring.read(0, header_bytes, header_length);
      MessageHeader header;
      DecodeStatus status =
          decode_header(header_bytes, header_length, config_.max_message_bytes, header);
      if (status == DecodeStatus::ok) {
        const std::size_t total = kMessageHeaderBytes + header.payload_length;
        if (length < total) {
          status = DecodeStatus::truncated;
        } else if (length > total) {
          status = DecodeStatus::trailing_bytes;
        } else if (header.source != src) {
          status = DecodeStatus::wrong_source;
        } else if (header.type == MessageType::hello) {
          status = DecodeStatus::protocol;
        }
      }
      if (status != DecodeStatus::ok) {
        reject_record(status, inbound_name(src));
        ring.pop();
        continue;
      }
      out.type = header.type;
      out.txn_id = header.txn_id;
      out.source = src;
      out.payload.resize(header.payload_length);
      ring.read(kMessageHeaderBytes, out.payload.data(), header.payload_length);
      ring.pop();
      if (!watches_.empty()) watches_[src < me ? src : src - 1] = Watch{ring.next_stamp_word(), ring.next_stamp()};
      ++stats_.messages_received;
      stats_.bytes_received += length;
      // Start the next poll at the following peer, so a busy peer cannot starve the others.
      next_source_ = src + 1 == n ? 0 : src + 1;
      return true;
    }
  }
  refresh_watches();  // after malformed records were dropped or a ring resynchronised
  return false;
}

void ShmRingTransport::refresh_watches() {
  if (watches_.empty()) return;  // more peers than kMaxWatchedRings: the doorbell is rung instead
  std::size_t k = 0;
  for (std::uint32_t src = 0; src < config_.n_instances; ++src) {
    if (src == config_.instance_id) continue;
    watches_[k++] = Watch{inbound_[src].ring.next_stamp_word(), inbound_[src].ring.next_stamp()};
  }
}

bool ShmRingTransport::pending() {
  if (closed_) return false;
  for (std::uint32_t src = 0; src < config_.n_instances; ++src) {
    std::size_t length = 0;
    if (src != config_.instance_id && inbound_[src].ring.peek(length) != RingPeek::empty) return true;
  }
  return false;
}

void ShmRingTransport::cleanup() {
  if (closed_) return;
  closed_ = true;
  for (auto& m : inbound_) {
    if (m.ring.valid()) m.ring.control().consumer_closed.store(1, std::memory_order_release);
    if (m.created) ::unlink(m.path.c_str());
  }
  unmap_all();
  close_doorbells();
  // The rings are unmapped: point the watches at a word that never changes.
  static const std::uint64_t kNothing = 0;
  for (Watch& w : watches_) w = Watch{&kNothing, 1};
}

void ShmRingTransport::unmap_all() noexcept {
  for (auto* side : {&inbound_, &outbound_}) {
    for (auto& m : *side) {
      if (m.address != nullptr) ::munmap(m.address, m.bytes);
      m = Mapping();
    }
  }
}

std::unique_ptr<Transport> make_shm_transport(const TransportConfig& config) {
  return std::make_unique<ShmRingTransport>(config);
}

}  // namespace islands
