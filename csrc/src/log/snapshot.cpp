#include "islands/log/snapshot.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "islands/log/crc32c.hpp"

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
                    const std::function<void(const std::function<void(const Row&)>&)>& for_each) {
  const std::size_t entry = 8 + 4u * columns;
  std::vector<unsigned char> body;
  for_each([&](const Row& row) {
    const std::size_t at = body.size();
    body.resize(at + entry);
    std::memcpy(body.data() + at, &row.key, 8);
    std::memcpy(body.data() + at + 8, row.columns(), entry - 8);
  });
  Header h{kMagic, info.end_lsn, info.epoch, columns, body.size() / entry, 0, 0};
  h.crc = crc32c(body.data(), body.size(), crc32c(&h, offsetof(Header, crc)));
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("checkpoint: cannot create " + tmp + ": " + std::strerror(errno));
  auto write_all = [&](const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    while (n > 0) {
      const ssize_t done = ::write(fd, c, n);
      if (done < 0 && errno == EINTR) continue;
      if (done <= 0) return false;
      c += done;
      n -= static_cast<std::size_t>(done);
    }
    return true;
  };
  if (!write_all(&h, sizeof h) || !write_all(body.data(), body.size()) || ::fdatasync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error("checkpoint: cannot write " + tmp + ": " + std::strerror(e));
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("checkpoint: cannot rename " + tmp + ": " + std::strerror(e));
  }
}

SnapshotInfo read_snapshot(const std::string& path, std::uint16_t columns,
                           const std::function<void(std::uint64_t, const std::int32_t*)>& apply) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("checkpoint: cannot read " + path + ": " + std::strerror(errno));
  const std::vector<unsigned char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Header h;
  if (data.size() < sizeof h) throw std::runtime_error("checkpoint: " + path + " is truncated");
  std::memcpy(&h, data.data(), sizeof h);
  const std::size_t entry = 8 + 4u * columns;
  if (h.magic != kMagic) throw std::runtime_error("checkpoint: " + path + " is not a snapshot");
  if (h.columns != columns) {
    throw std::runtime_error("checkpoint: " + path + " holds rows of " + std::to_string(h.columns) +
                             " columns but this run has " + std::to_string(columns));
  }
  if (data.size() != sizeof h + h.rows * entry ||
      crc32c(data.data() + sizeof h, data.size() - sizeof h, crc32c(&h, offsetof(Header, crc))) != h.crc) {
    throw std::runtime_error("checkpoint: " + path + " is corrupt or truncated (checksum mismatch); refusing to recover");
  }
  std::vector<std::int32_t> row(columns);
  for (std::uint64_t i = 0; i < h.rows; ++i) {
    const unsigned char* p = data.data() + sizeof h + i * entry;
    std::uint64_t key;
    std::memcpy(&key, p, 8);
    std::memcpy(row.data(), p + 8, 4u * columns);
    apply(key, row.data());
  }
  return {h.end_lsn, h.epoch, h.rows};
}

}  // namespace islands
