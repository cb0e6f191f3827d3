// What recovery asks of a workload (RedoTarget): a log of commits whose redo mixes after-images
// and deletes, and a prepared part that aborted, is replayed in log order (the aborted part
// not at all); a checkpoint snapshot is applied after clear() and only the records after it
// follow; a delete of a row the data does not hold, and a snapshot holding a delete entry,
// are refused; a snapshot of many chunks reads back whole, and a flipped byte is refused; a
// log that lost acknowledged commits (acks-<site>.bin), or lost its snapshot, is refused.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.hpp"
#include "islands/log/crc32c.hpp"
#include "islands/log/log_config.hpp"
#include "islands/log/log_record.hpp"
#include "islands/log/log_recovery.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/log/redo_entry.hpp"
#include "islands/log/snapshot.hpp"
#include "islands/storage/table.hpp"
#include "temp_dir.hpp"

using namespace islands;

namespace {

constexpr std::uint16_t kColumns = 2;

// One call recovery made: 'c' clear, 'a' apply (key, columns, first column), 'd' erase (key).
struct Call {
  char what;
  std::uint64_t key;
  std::size_t columns;
  std::int32_t first;
  bool operator==(const Call& o) const {
    return what == o.what && key == o.key && columns == o.columns && first == o.first;
  }
};

struct Recorder {
  std::vector<Call> calls;
  std::uint64_t missing = ~std::uint64_t{0};  // a key erase() does not find
  RedoTarget target() {
    RedoTarget t;
    t.clear = [this] { calls.push_back({'c', 0, 0, 0}); };
    t.apply = [this](std::uint64_t key, const std::int32_t* image, std::size_t columns) {
      calls.push_back({'a', key, columns, image[0]});
      return true;
    };
    t.erase = [this](std::uint64_t key) {
      calls.push_back({'d', key, 0, 0});
      return key != missing;
    };
    return t;
  }
};

bool throws_with(const std::string& dir, Recorder& recorder, const char* needle) {
  try {
    recover_from_log(dir, 0, kColumns, recorder.target());
  } catch (const std::runtime_error& e) {
    return std::strstr(e.what(), needle) != nullptr;
  }
  return false;
}

}  // namespace

int main() {
  const std::string dir = islands_test::make_temp_dir("recovery");
  LogConfig config;
  config.mode = LogMode::group_commit;
  config.directory = dir;
  const std::string path = log_file_path(dir, 0);

  {  // A peer's file read as a copy stays readable when its writer cuts it meanwhile (a mapping
     // would die with SIGBUS past the new end).
    const std::string peer = dir + "/peer.bin";
    const std::vector<unsigned char> bytes(3 * 4096, 0x5a);
    const int fd = ::open(peer.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    const MappedFile copy(peer, "test", FileAccess::copy);
    CHECK(::ftruncate(fd, 0) == 0);
    ::close(fd);
    CHECK(copy.size() == bytes.size() && std::memcmp(copy.data(), bytes.data(), bytes.size()) == 0);
    ::unlink(peer.c_str());
  }

  // txn 1 writes key 1; txn 2 deletes key 1 and writes key 2; txn 3 prepares key 3 and aborts;
  // txn 4 deletes key 2.
  const std::int32_t a[2] = {10, 11}, b[1] = {20}, c[2] = {30, 31};
  std::vector<unsigned char> r1, r2, r3, r4;
  append_redo_entry(r1, 1, a, 2);
  append_redo_delete(r2, 1);
  append_redo_entry(r2, 2, b, 1);
  append_redo_entry(r3, 3, c, 2);
  append_redo_delete(r4, 2);
  std::uint64_t after_txn2 = 0;
  {
    LogWriter log(config, path, 0, 0, 1);
    log.append(LogRecordType::commit, 1, 0, kColumns, r1.data(), r1.size());
    after_txn2 = log.append(LogRecordType::commit, 2, 0, kColumns, r2.data(), r2.size());
    log.append(LogRecordType::prepare, 3, 0, kColumns, r3.data(), r3.size());
    log.append(LogRecordType::abort_prepared, 3, 0, 0, nullptr, 0);
    log.append(LogRecordType::commit, 4, 0, kColumns, r4.data(), r4.size());
    log.close();
  }
  Recorder from_log;
  const RecoveryStats stats = recover_from_log(dir, 0, kColumns, from_log.target());
  CHECK(from_log.calls == (std::vector<Call>{{'a', 1, 2, 10}, {'d', 1, 0, 0}, {'a', 2, 1, 20}, {'d', 2, 0, 0}}));
  CHECK(stats.rows_redone == 4 && stats.txns_redone == 3 && stats.prepared_aborted == 1);
  CHECK(stats.snapshot_rows == 0);

  // Acknowledgement files (acks-<site>.bin): every commit they list must be in the log. Txns
  // 1, 2 and 4 are; a fifth is not (a log cut at a record boundary after it): refused with
  // the counts. Read-only entries (kReadOnlyAckTag) ask nothing of the log.
  const std::string acks = ack_file_path(dir, 0);
  auto write_acks = [&](const std::vector<std::uint64_t>& ids) {
    const int a = ::open(acks.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(a >= 0);
    CHECK(::write(a, ids.data(), 8 * ids.size()) == static_cast<ssize_t>(8 * ids.size()));
    ::close(a);
  };
  write_acks({1, 2, 0xffffULL << 48 | 77, 4});
  Recorder acked_all;
  const RecoveryStats held = recover_from_log(dir, 0, kColumns, acked_all.target(), 0, 1);
  CHECK(held.acknowledged == 3 && held.acknowledged_recovered == 3);
  write_acks({1, 2, 4, 5});
  bool lost = false;
  try {
    Recorder r;
    recover_from_log(dir, 0, kColumns, r.target(), 0, 1);
  } catch (const std::runtime_error& e) {
    lost = std::strstr(e.what(), "lost acknowledged commits: acknowledged 4, recovered 3 from") != nullptr &&
           std::strstr(e.what(), "acks-0.bin") != nullptr;
  }
  CHECK(lost);
  Recorder other_sites;  // another instance's sites: not this log's to hold
  CHECK(recover_from_log(dir, 0, kColumns, other_sites.target(), 1, 1).acknowledged == 0);
  ::unlink(acks.c_str());

  // A delete of a row the data does not hold is refused, naming it.
  Recorder missing;
  missing.missing = 2;
  CHECK(throws_with(dir, missing, "deletes a row (key 2"));

  // A snapshot as of txn 2: clear() first, then its rows, then only the records after it.
  Table rows(1, kColumns);
  Row* row = rows.allocate(0, 7);
  row->columns()[0] = 70;
  SnapshotInfo info;
  info.end_lsn = after_txn2;
  info.epoch = 1;
  write_snapshot(snapshot_path(dir, 0), info, kColumns,
                 [&](const SnapshotRowVisitor& f) { rows.for_each_row(0, [&](const Row& r) { f(r, kColumns); }); });
  Recorder from_snapshot;
  const RecoveryStats again = recover_from_log(dir, 0, kColumns, from_snapshot.target());
  CHECK(from_snapshot.calls == (std::vector<Call>{{'c', 0, 0, 0}, {'a', 7, 2, 70}, {'d', 2, 0, 0}}));
  CHECK(again.snapshot_rows == 1 && again.rows_redone == 1);

  // A snapshot whose (checksummed) body holds a delete entry is refused before clear().
  std::vector<unsigned char> body;
  append_redo_delete(body, 7);
  struct Header {
    std::uint64_t magic, end_lsn;
    std::uint32_t epoch, columns;
    std::uint64_t rows;
    std::uint32_t crc, pad;
  } h{0x544f4853504e5349ULL, after_txn2, 1, kColumns, 1, 0, 0};
  static_assert(sizeof(Header) == 40, "the snapshot header (snapshot.cpp)");
  h.crc = crc32c(body.data(), body.size(), crc32c(&h, offsetof(Header, crc)));
  const std::string snapshot = snapshot_path(dir, 0);
  const int fd = ::open(snapshot.c_str(), O_WRONLY | O_TRUNC);
  CHECK(fd >= 0);
  CHECK(::write(fd, &h, sizeof h) == static_cast<ssize_t>(sizeof h));
  CHECK(::write(fd, body.data(), body.size()) == static_cast<ssize_t>(body.size()));
  ::close(fd);
  Recorder refused;
  CHECK(throws_with(dir, refused, "a delete entry (key 7) is not a row"));
  CHECK(refused.calls.empty());

  // A snapshot of many chunks (the writer streams 4 MiB at a time) reads back whole, in order;
  // a byte flipped in its middle is refused by the checksum.
  constexpr std::uint64_t kMany = 400000;
  Table big(1, kColumns);
  for (std::uint64_t k = 0; k < kMany; ++k) {
    Row* r = big.allocate(0, k + 1);
    r->columns()[0] = static_cast<std::int32_t>(k * 3);
    r->columns()[1] = static_cast<std::int32_t>(k ^ 0x5a5a);
  }
  write_snapshot(snapshot, info, kColumns,
                 [&](const SnapshotRowVisitor& f) { big.for_each_row(0, [&](const Row& r) { f(r, kColumns); }); });
  CHECK(::access((snapshot + ".tmp").c_str(), F_OK) != 0);
  std::uint64_t seen = 0;
  bool in_order = true;
  const SnapshotInfo read = read_snapshot(snapshot, kColumns, [&](std::uint64_t key, const std::int32_t* image,
                                                                  std::size_t columns) {
    in_order = in_order && key == seen + 1 && columns == kColumns && image[0] == static_cast<std::int32_t>(seen * 3) &&
               image[1] == static_cast<std::int32_t>(seen ^ 0x5a5a);
    ++seen;
  });
  CHECK(read.rows == kMany && seen == kMany && in_order && read.end_lsn == after_txn2);
  const int rw = ::open(snapshot.c_str(), O_RDWR);
  CHECK(rw >= 0);
  const off_t middle = ::lseek(rw, 0, SEEK_END) / 2;
  unsigned char byte = 0;
  CHECK(::pread(rw, &byte, 1, middle) == 1);
  byte ^= 0x01;
  CHECK(::pwrite(rw, &byte, 1, middle) == 1);
  ::close(rw);
  bool corrupt = false;
  try {
    read_snapshot(snapshot, kColumns, [](std::uint64_t, const std::int32_t*, std::size_t) {});
  } catch (const std::runtime_error& e) {
    corrupt = std::strstr(e.what(), "checksum mismatch") != nullptr;
  }
  CHECK(corrupt);

  // A log that starts past LSN 0 follows a checkpoint: without its snapshot, refused.
  ::unlink(snapshot.c_str());
  ::unlink(path.c_str());
  {
    LogWriter later(config, path, after_txn2, 0, 2);
    later.append(LogRecordType::commit, 9, 0, kColumns, r1.data(), r1.size());
    later.close();
  }
  Recorder no_snapshot;
  CHECK(throws_with(dir, no_snapshot, "after a checkpoint, but its snapshot"));
  ::unlink(path.c_str());
  ::rmdir(dir.c_str());
  return test_summary("test_log_recovery");
}
