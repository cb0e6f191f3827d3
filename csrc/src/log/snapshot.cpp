#include "islands/log/snapshot.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "islands/log/crc32c.hpp"
#include "islands/log/private_file.hpp"
#include "islands/log/redo_entry.hpp"

namespace islands {
namespace {

constexpr std::uint64_t kMagic = 0x544f4853504e5349ULL;  // "ISNPSHOT"

struct Header {
  std::uint64_t magic;
  std::uint64_t end_lsn;
  std::uint32_t epoch;
  std::uint32_t columns;
  std::uint64_t rows;
  std::uint32_t crc;
  std::uint32_t pad;
};
static_assert(sizeof(Header) == 40, "snapshot header is 40 bytes");

}  // namespace

std::string snapshot_path(const std::string& directory, std::uint32_t instance) {
  return directory + "/instance-" + std::to_string(instance) + ".snapshot";
}

void write_snapshot(const std::string& path, const SnapshotInfo& info, std::uint16_t columns,
                    const std::function<void(const SnapshotRowVisitor&)>& for_each) {
  // Streamed in chunks, so that a checkpoint needs a chunk of memory rather than a copy of the
  // tables: a first pass counts the rows (the header's CRC covers the count), the second
  // writes them, the header goes in last.
  std::uint64_t rows = 0;
  for_each([&](const Row&, std::size_t) { ++rows; });
  Header h{kMagic, info.end_lsn, info.epoch, columns, rows, 0, 0};
  std::uint32_t crc = crc32c(&h, offsetof(Header, crc));
  const std::string tmp = path + ".tmp";
  const int fd = open_private_file(tmp, O_WRONLY | O_CREAT | O_TRUNC, "checkpoint");
  auto write_all = [&](const void* p, std::size_t n, off_t at) {
    const auto* c = static_cast<const unsigned char*>(p);
    while (n > 0) {
      const ssize_t done = ::pwrite(fd, c, n, at);
      if (done < 0 && errno == EINTR) continue;
      if (done <= 0) return false;
      c += done;
      at += done;
      n -= static_cast<std::size_t>(done);
    }
    return true;
  };
  auto fail = [&](int e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error("checkpoint: cannot write " + tmp + ": " + std::strerror(e));
  };
  constexpr std::size_t kChunk = 4 << 20;
  std::vector<unsigned char> chunk;
  chunk.reserve(kChunk + 4096);
  off_t at = sizeof h;
  std::uint64_t written = 0;
  int error = 0;  // the first failed write's errno
  auto flush = [&] {
    crc = crc32c(chunk.data(), chunk.size(), crc);
    if (error == 0 && !write_all(chunk.data(), chunk.size(), at)) error = errno != 0 ? errno : EIO;
    at += static_cast<off_t>(chunk.size());
    chunk.clear();
  };
  for_each([&](const Row& row, std::size_t row_columns) {
    append_redo_entry(chunk, row.key, row.columns(), row_columns);
    ++written;
    if (chunk.size() >= kChunk) flush();
  });
  flush();
  if (error != 0) fail(error);
  if (written != rows) {  // the tables changed between the passes: a caller's bug
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::logic_error("checkpoint: the rows changed while " + tmp + " was written");
  }
  h.crc = crc;
  if (!write_all(&h, sizeof h, 0) || ::fdatasync(fd) != 0) fail(errno);
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("checkpoint: cannot rename " + tmp + ": " + std::strerror(e));
  }
}

SnapshotInfo read_snapshot(const std::string& path, std::uint16_t columns,
                           const std::function<void(std::uint64_t, const std::int32_t*, std::size_t)>& apply) {
  const MappedFile data(path, "checkpoint");
  Header h;
  if (data.size() < sizeof h) throw std::runtime_error("checkpoint: " + path + " is truncated");
  std::memcpy(&h, data.data(), sizeof h);
  if (h.magic != kMagic) throw std::runtime_error("checkpoint: " + path + " is not a snapshot");
  if (h.columns != columns) {
    throw std::runtime_error("checkpoint: " + path + " holds rows of up to " + std::to_string(h.columns) +
                             " columns but this run's widest has " + std::to_string(columns));
  }
  const unsigned char* body = data.data() + sizeof h;
  const std::size_t body_bytes = data.size() - sizeof h;
  if (crc32c(body, body_bytes, crc32c(&h, offsetof(Header, crc))) != h.crc) {
    throw std::runtime_error("checkpoint: " + path + " is corrupt or truncated (checksum mismatch); refusing to recover");
  }
  std::uint64_t rows = 0;
  try {
    rows = for_each_redo_entry(body, body_bytes, [](std::uint64_t key, const std::int32_t* image, std::size_t) {
      if (image == nullptr) throw std::runtime_error("a delete entry (key " + std::to_string(key) + ") is not a row");
    });
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("checkpoint: " + path + " is malformed: " + std::string(e.what()));
  }
  if (rows != h.rows) {
    throw std::runtime_error("checkpoint: " + path + " says " + std::to_string(h.rows) + " rows but holds " +
                             std::to_string(rows));
  }
  for_each_redo_entry(body, body_bytes, apply);
  return {h.end_lsn, h.epoch, h.rows};
}

}  // namespace islands
