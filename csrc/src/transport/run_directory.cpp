#include "islands/transport/run_directory.hpp"

#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace islands {

namespace {

constexpr long kTmpfsMagic = 0x01021994;
constexpr long kHugetlbfsMagic = 0x958458f6;

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

}  // namespace

RunDirectory::RunDirectory(const std::string& path) : path_(path) {
  // Strip trailing slashes so the names we build and report read cleanly.
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
  if (path_.empty()) throw std::invalid_argument("transport directory: empty path");
  // Several instances of a run may race to create it; EEXIST just means another won, and the
  // checks below apply to whoever made it.
  if (::mkdir(path_.c_str(), 0700) != 0 && errno != EEXIST) {
    throw std::runtime_error("transport directory " + path_ + ": cannot create: " +
                             std::strerror(errno));
  }
  struct stat st {};
  if (::lstat(path_.c_str(), &st) != 0) {
    throw std::runtime_error("transport directory " + path_ + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    throw std::invalid_argument("transport directory " + path_ + " is not a directory");
  }
  if (st.st_uid != ::geteuid()) {
    throw std::invalid_argument("transport directory " + path_ + " is owned by uid " +
                                std::to_string(st.st_uid) + ", not by this user (" +
                                std::to_string(::geteuid()) + ")");
  }
  // Group or other access would let another user connect to a socket or map a ring; refuse
  // rather than chmod a directory someone else chose, and say how to fix it.
  if ((st.st_mode & 077) != 0) {
    throw std::invalid_argument("transport directory " + path_ + " has mode " +
                                octal_mode(st.st_mode) +
                                "; it must be owner-only (0700, as tempfile.mkdtemp makes it)");
  }
}

bool RunDirectory::in_memory() const {
  struct statfs fs {};
  if (::statfs(path_.c_str(), &fs) != 0) return false;
  return static_cast<long>(fs.f_type) == kTmpfsMagic ||
         static_cast<long>(fs.f_type) == kHugetlbfsMagic;
}

std::string RunDirectory::filesystem() const {
  struct statfs fs {};
  if (::statfs(path_.c_str(), &fs) != 0) return "unknown";
  switch (static_cast<long>(fs.f_type)) {
    case kTmpfsMagic: return "tmpfs";
    case kHugetlbfsMagic: return "hugetlbfs";
    case 0xEF53: return "ext4";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x794c7630: return "overlayfs";
    case 0x6969: return "nfs";
    default: break;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%lx", static_cast<unsigned long>(fs.f_type));
  return buf;
}

}  // namespace islands
