#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace islands {

//! The log's files (logs, snapshots, acknowledgements) live in a directory the user names, which
//! other local users may share. So the directory must belong to this user and be writable by
//! nobody else, and its files are opened without following symbolic links and created
//! owner-only: nobody else can plant a link that makes a (root) run overwrite or create a file
//! elsewhere, or read what the log holds.

//! Throws ConfigError("log.directory", why) unless `directory` is a directory (not a symbolic
//! link) owned by this process's user and not writable by its group or others.
void check_log_directory(const std::string& directory);

//! open(2) of `path` with O_NOFOLLOW and O_CLOEXEC added, creating it 0600 when `flags` hold
//! O_CREAT; throws std::runtime_error("<who>: cannot open <path>: <why>") on failure, a symbolic
//! link included.
int open_private_file(const std::string& path, int flags, const char* who);

//! The whole content of a file opened as open_private_file does, mapped read only: recovery
//! reads logs and snapshots in place (from the page cache, which the kernel may drop and read
//! again) instead of copying gigabytes of them into the process's memory.
//! How MappedFile holds a file: `map`, in place (this process's own files); `copy`, read into
//! memory, for a file another process may truncate or rewrite meanwhile (a peer instance's log
//! or acknowledgements, read while it recovers and starts afresh): reading a mapping past the
//! file's new end would kill the reader with SIGBUS, a copy holds what was there when read.
enum class FileAccess { map, copy };

class MappedFile {
 public:
  //! Maps `path`; throws std::runtime_error("<who>: cannot ... <path>: <why>") when it cannot.
  MappedFile(const std::string& path, const char* who, FileAccess access = FileAccess::map);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }  //!< the first byte (nullptr when empty)
  std::size_t size() const { return size_; }           //!< bytes in the file
  bool empty() const { return size_ == 0; }             //!< an empty file

 private:
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  std::vector<unsigned char> copy_;  // FileAccess::copy: the bytes (data_ points into them)
  bool mapped_ = false;              // FileAccess::map and not empty: data_ is a mapping
};

}  // namespace islands
