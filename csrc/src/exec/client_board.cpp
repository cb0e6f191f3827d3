#include "islands/exec/client_board.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "islands/transport/deadline.hpp"
#include "islands/transport/run_directory.hpp"

namespace islands {

namespace {

std::string system_error(const std::string& what, const std::string& path) {
  return "clients: " + what + " " + path + ": " + std::strerror(errno);
}

std::string queue_file(std::uint32_t instance) { return "clients-" + std::to_string(instance); }

// Closes a descriptor on every path out of a set-up step.
struct FdGuard {
  int fd = -1;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

ClientBoard::ClientBoard(std::uint32_t instance, std::uint32_t instances, std::size_t capacity,
                         const std::string& directory, std::uint32_t attach_timeout_ms)
    : instance_(instance), queues_(instances), mappings_(instances) {
  if (instances == 1) {
    heap_ = true;
    create_on_heap(0, capacity);
    return;
  }
  try {
    create_own(capacity, directory);  // creating never waits, so no order of start-up deadlocks
    for (std::uint32_t peer = 0; peer < instances; ++peer) {
      if (peer != instance_) attach_peer(peer, directory, attach_timeout_ms);
    }
  } catch (...) {
    release();  // no file of this instance outlives a failed set-up
    throw;
  }
}

ClientBoard::ClientBoard(std::uint32_t queues, std::size_t capacity)
    : instance_(0), queues_(queues), mappings_(queues), heap_(true) {
  try {
    for (std::uint32_t i = 0; i < queues; ++i) create_on_heap(i, capacity);
  } catch (...) {
    release();
    throw;
  }
}

ClientQueue ClientBoard::queue_on_heap(std::size_t capacity, void*& memory) {
  const std::size_t bytes = ClientQueue::bytes(capacity);
  // Pages of its own: a heap neighbour's hot line next to the queue's halved a 1ISL closed
  // loop in some processes and not others (wherever the allocator put it).
  memory = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (memory == nullptr) throw std::bad_alloc();
  std::memset(memory, 0, bytes);
  return ClientQueue::create(memory, capacity);
}

void ClientBoard::create_on_heap(std::uint32_t i, std::size_t capacity) {
  void* memory = nullptr;
  queues_[i] = queue_on_heap(capacity, memory);
  mappings_[i] = {memory, ClientQueue::bytes(capacity)};
}

void ClientBoard::add_stashes(std::uint32_t workers, std::size_t capacity) {
  stashes_.reserve(workers);
  stash_memory_.reserve(workers);
  for (std::uint32_t w = 0; w < workers; ++w) {
    void* memory = nullptr;
    stashes_.push_back(queue_on_heap(capacity, memory));
    stash_memory_.push_back(memory);
  }
}

std::uint64_t ClientBoard::waiting() const {
  std::uint64_t n = queues_[instance_].length();
  for (const ClientQueue& stash : stashes_) n += stash.length();
  return n;
}


ClientBoard::~ClientBoard() { release(); }

void ClientBoard::release() {
  for (void* memory : stash_memory_) std::free(memory);
  stash_memory_.clear();
  stashes_.clear();
  for (Mapping& m : mappings_) {
    if (m.address == nullptr) continue;
    if (heap_) {
      std::free(m.address);
    } else {
      ::munmap(m.address, m.bytes);
    }
    m.address = nullptr;
  }
  if (!own_path_.empty()) ::unlink(own_path_.c_str());
  own_path_.clear();
}

void ClientBoard::create_own(std::size_t capacity, const std::string& directory) {
  const RunDirectory dir(directory);
  const std::string path = dir.file(queue_file(instance_));
  const std::string temp = dir.file("." + queue_file(instance_) + ".tmp");
  const std::size_t bytes = ClientQueue::bytes(capacity);
  FdGuard fd;
  fd.fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd.fd < 0) throw std::runtime_error(system_error("cannot create", temp));
  try {
    if (::fchmod(fd.fd, 0600) != 0) throw std::runtime_error(system_error("cannot chmod", temp));
    if (::ftruncate(fd.fd, static_cast<off_t>(bytes)) != 0) throw std::runtime_error(system_error("cannot size", temp));
    void* address = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.fd, 0);
    if (address == MAP_FAILED) throw std::runtime_error(system_error("cannot map", temp));
    mappings_[instance_] = {address, bytes};
    queues_[instance_] = ClientQueue::create(address, capacity);
    // Under its real name only once initialised; link fails rather than replaces.
    if (::link(temp.c_str(), path.c_str()) != 0) {
      throw std::runtime_error(errno == EEXIST ? "clients: " + path + " already exists: another instance " +
                                                     std::to_string(instance_) + " uses this run directory"
                                               : system_error("cannot publish", path));
    }
    own_path_ = path;
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  ::unlink(temp.c_str());
}

void ClientBoard::attach_peer(std::uint32_t peer, const std::string& directory, std::uint32_t attach_timeout_ms) {
  const std::string path = directory + "/" + queue_file(peer);
  FdGuard fd;
  Deadline deadline(attach_timeout_ms);
  for (;;) {
    fd.fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd.fd >= 0) break;
    if (errno != ENOENT) throw std::runtime_error(system_error("cannot open", path));
    if (deadline.expired()) {
      throw std::runtime_error("clients: instance " + std::to_string(instance_) + " waited " +
                               std::to_string(attach_timeout_ms) + " ms for instance " + std::to_string(peer) +
                               " to create its request queue " + path);
    }
    deadline.sleep();
  }
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) throw std::runtime_error(system_error("cannot stat", path));
  if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
    throw std::runtime_error("clients: " + path + " is not a regular owner-only file of this user; refusing to map it");
  }
  const auto bytes = static_cast<std::size_t>(st.st_size);
  void* address = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.fd, 0);
  if (address == MAP_FAILED) throw std::runtime_error(system_error("cannot map", path));
  mappings_[peer] = {address, bytes};
  std::string error;
  queues_[peer] = ClientQueue::attach(address, bytes, error);
  if (!queues_[peer].valid()) throw std::runtime_error("clients: " + path + " is malformed: " + error);
}

}  // namespace islands
