#include "islands/transport/doorbell.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <new>
#include <stdexcept>
#include <utility>

namespace islands {

namespace {

std::string system_error(const char* what, const std::string& action, const std::string& path) {
  return std::string(what) + " transport: " + action + " " + path + ": " + std::strerror(errno);
}

// Shared (not FUTEX_PRIVATE): sender and receiver are different processes mapping one file.
long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value, const timespec* timeout) {
  return ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, timeout, nullptr, 0);
}

DoorbellWord* map_word(int fd, const char* what, const std::string& path) {
  void* address = ::mmap(nullptr, sizeof(DoorbellWord), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (address == MAP_FAILED) throw std::runtime_error(system_error(what, "cannot map", path));
  return static_cast<DoorbellWord*>(address);
}

}  // namespace

std::string Doorbell::file_name(const char* transport, std::uint32_t instance) {
  return std::string(transport) + "-bell-" + std::to_string(instance);
}

Doorbell::Doorbell(Doorbell&& other) noexcept
    : word_(std::exchange(other.word_, nullptr)),
      path_(std::move(other.path_)),
      created_(std::exchange(other.created_, false)) {}

Doorbell& Doorbell::operator=(Doorbell&& other) noexcept {
  if (this != &other) {
    close();
    word_ = std::exchange(other.word_, nullptr);
    path_ = std::move(other.path_);
    created_ = std::exchange(other.created_, false);
  }
  return *this;
}

Doorbell Doorbell::create(const RunDirectory& directory, std::uint32_t instance, const char* what) {
  const std::string name = file_name(what, instance);
  const std::string path = directory.file(name);
  const std::string temp = directory.file("." + name + ".tmp");
  const int fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) {
      throw std::runtime_error(std::string(what) + " transport: " + temp + " already exists: another instance " +
                               std::to_string(instance) + " uses this directory, or it is a stale run directory");
    }
    throw std::runtime_error(system_error(what, "cannot create", temp));
  }
  Doorbell bell;
  try {
    if (::ftruncate(fd, sizeof(DoorbellWord)) != 0) throw std::runtime_error(system_error(what, "cannot size", temp));
    bell.word_ = map_word(fd, what, temp);
    // The file is zero-filled: the counters start at 0; the magic says it is ready.
    new (bell.word_) DoorbellWord{kDoorbellMagic, {0}, {0}};
    // Published under its real name only once initialised; link refuses an existing name.
    if (::link(temp.c_str(), path.c_str()) != 0) {
      if (errno == EEXIST) {
        throw std::runtime_error(std::string(what) + " transport: " + path + " already exists: another instance " +
                                 std::to_string(instance) + " uses this directory, or it is a stale run directory");
      }
      throw std::runtime_error(system_error(what, "cannot publish", path));
    }
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;  // bell unmaps itself (not created: nothing of its name to unlink)
  }
  ::close(fd);
  ::unlink(temp.c_str());
  bell.path_ = path;
  bell.created_ = true;
  return bell;
}

Doorbell Doorbell::open(const RunDirectory& directory, std::uint32_t instance, const char* what) {
  const std::string path = directory.file(file_name(what, instance));
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(system_error(what, "cannot open the doorbell of peer instance " +
                                                              std::to_string(instance) + ",",
                                                    path));
  Doorbell bell;
  try {
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw std::runtime_error(system_error(what, "cannot stat", path));
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0 ||
        static_cast<std::size_t>(st.st_size) != sizeof(DoorbellWord)) {
      throw std::runtime_error(std::string(what) + " transport: " + path +
                               " is not an owner-only doorbell file of this user; refusing to map it");
    }
    bell.word_ = map_word(fd, what, path);
    if (bell.word_->magic != kDoorbellMagic) {
      throw std::runtime_error(std::string(what) + " transport: " + path + " is not an initialised doorbell");
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  bell.path_ = path;
  return bell;
}

void Doorbell::wait(std::uint32_t seen, std::chrono::microseconds timeout) {
  word_->sleeping.store(1, std::memory_order_seq_cst);
  if (word_->rings.load(std::memory_order_seq_cst) == seen) sleep(seen, timeout);
  word_->sleeping.store(0, std::memory_order_relaxed);
}

void Doorbell::sleep(std::uint32_t seen, std::chrono::microseconds timeout) {
  const auto us = timeout.count();
  const timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
  // The kernel sleeps only while the word still equals seen. EAGAIN (it changed first), EINTR
  // and ETIMEDOUT all mean: look again.
  futex(&word_->rings, FUTEX_WAIT, seen, &ts);
}

void Doorbell::wake() { futex(&word_->rings, FUTEX_WAKE, INT_MAX, nullptr); }

void Doorbell::close() noexcept {
  if (created_ && !path_.empty()) ::unlink(path_.c_str());
  created_ = false;
  if (word_ != nullptr) ::munmap(word_, sizeof(DoorbellWord));
  word_ = nullptr;
  path_.clear();
}

}  // namespace islands
