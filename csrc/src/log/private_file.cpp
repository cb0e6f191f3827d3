#include "islands/log/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int e = errno;
    struct stat st;
    const bool link = e == ELOOP || (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode));
    throw std::runtime_error(std::string(who) + ": cannot open " + path + ": " +
                             (link ? "it is a symbolic link (refused)" : std::strerror(e)));
  }
  return fd;
}

std::vector<unsigned char> read_private_file(const std::string& path, const char* who) {
  const int fd = open_private_file(path, O_RDONLY, who);
  std::vector<unsigned char> data;
  unsigned char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      throw std::runtime_error(std::string(who) + ": cannot read " + path + ": " + std::strerror(e));
    }
    if (n == 0) break;
    data.insert(data.end(), chunk, chunk + n);
  }
  ::close(fd);
  return data;
}

}  // namespace islands
