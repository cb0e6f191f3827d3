#include "islands/log/private_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <stdexcept>

#include "islands/common/config_error.hpp"

namespace islands {

void check_log_directory(const std::string& directory) {
  struct stat st;
  if (::lstat(directory.c_str(), &st) != 0) {
    throw ConfigError("log.directory", directory + ": " + std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode)) {
    throw ConfigError("log.directory", directory + " is a symbolic link; name the directory itself");
  }
  if (!S_ISDIR(st.st_mode)) throw ConfigError("log.directory", directory + " is not a directory");
  if (st.st_uid != ::geteuid()) {
    throw ConfigError("log.directory", directory + " belongs to user " + std::to_string(st.st_uid) +
                                           ", not to this one (" + std::to_string(::geteuid()) + ")");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    throw ConfigError("log.directory", directory + " is writable by its group or by others (use a directory only "
                                                   "you can write, e.g. one made by mktemp -d)");
  }
}

int open_private_file(const std::string& path, int flags, const char* who) {
  // O_NONBLOCK so that a FIFO planted in place of a log cannot hang open() waiting for a
  // writer (or a reader); anything but a regular file is refused once it is open.
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
  if (fd < 0) {
    const int e = errno;
    struct stat st;
    const bool exists = ::lstat(path.c_str(), &st) == 0;
    const bool link = e == ELOOP || (exists && S_ISLNK(st.st_mode));
    const bool special = !link && exists && !S_ISREG(st.st_mode);
    throw std::runtime_error(std::string(who) + ": cannot open " + path + ": " +
                             (link      ? "it is a symbolic link (refused)"
                              : special ? "it is not a regular file (refused)"
                                        : std::strerror(e)));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(std::string(who) + ": cannot open " + path +
                             ": it is not a regular file (refused)");
  }
  const int status = ::fcntl(fd, F_GETFL);
  if (status >= 0) ::fcntl(fd, F_SETFL, status & ~O_NONBLOCK);
  return fd;
}

MappedFile::MappedFile(const std::string& path, const char* who, FileAccess access) {
  const int fd = open_private_file(path, O_RDONLY, who);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw std::runtime_error(std::string(who) + ": cannot read " + path + ": " + std::strerror(e));
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ > 0 && access == FileAccess::copy) {
    copy_.resize(size_);
    std::size_t got = 0;
    while (got < size_) {  // short when the file shrank meanwhile: what is there is what was read
      const ssize_t n = ::read(fd, copy_.data() + got, size_ - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int e = errno;
        ::close(fd);
        throw std::runtime_error(std::string(who) + ": cannot read " + path + ": " + std::strerror(e));
      }
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    copy_.resize(got);
    size_ = got;
    data_ = copy_.empty() ? nullptr : copy_.data();
  } else if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      throw std::runtime_error(std::string(who) + ": cannot map " + path + ": " + std::strerror(e));
    }
    ::madvise(p, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const unsigned char*>(p);
    mapped_ = true;
  }
  ::close(fd);  // the mapping stays
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(const_cast<unsigned char*>(data_), size_);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(other.data_), size_(other.size_), copy_(std::move(other.copy_)), mapped_(other.mapped_) {
  other.data_ = nullptr;
  other.size_ = 0;
  other.mapped_ = false;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (mapped_) ::munmap(const_cast<unsigned char*>(data_), size_);
    data_ = other.data_;
    size_ = other.size_;
    copy_ = std::move(other.copy_);  // a moved vector keeps its buffer: data_ stays valid
    mapped_ = other.mapped_;
    other.data_ = nullptr;
    other.size_ = 0;
    other.mapped_ = false;
  }
  return *this;
}

}  // namespace islands
