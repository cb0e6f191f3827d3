#pragma once
#include <string>

namespace islands {

//! The private directory of a run, where endpoints keep their sockets and ring files.
//! Owner-only so that no other user can connect to a socket or map a ring: the directory is
//! 0700, every file in it 0600.
class RunDirectory {
 public:
  //! Creates path with mode 0700 if missing (its parent must exist), or checks that the existing
  //! one is a directory owned by this user with no group or other permission bits. Throws
  //! std::invalid_argument (bad or unsafe directory) or std::runtime_error (system error).
  explicit RunDirectory(const std::string& path);

  //! The directory itself.
  const std::string& path() const { return path_; }
  //! path/name.
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  //! True when the directory is on tmpfs or hugetlbfs (memory only, no write-back to disk).
  bool in_memory() const;
  //! Name of the file system the directory is on ("tmpfs", "ext4", ...; "0x..." if unknown).
  std::string filesystem() const;

 private:
  std::string path_;
};

}  // namespace islands
