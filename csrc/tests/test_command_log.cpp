// Command logging (log.content = command): a command record's words survive their encoding
// whatever their size, a malformed one is refused, and recovery executes each command again
// where its record is, between the after-images of the records around it, with the wall
// seconds the transaction read; a workload that cannot replay, or a command that does not
// commit again, stops recovery with the record's LSN.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.hpp"
#include "islands/log/command_entry.hpp"
#include "islands/log/log_config.hpp"
#include "islands/log/log_record.hpp"
#include "islands/log/log_recovery.hpp"
#include "islands/log/log_writer.hpp"
#include "islands/log/redo_entry.hpp"
#include "temp_dir.hpp"

using namespace islands;

namespace {

constexpr std::uint16_t kColumns = 2;

bool decodes(const std::vector<unsigned char>& bytes, std::vector<std::uint64_t>& words) {
  return decode_command(bytes.data(), bytes.size(), words);
}

struct Replayed {
  std::vector<std::string> order;  // "a<key>" for an after-image, "c<first word>@<seconds>" for a command
  bool commit = true;              // what replay answers
  RedoTarget target(bool with_replay) {
    RedoTarget t;
    t.clear = [] {};
    t.apply = [this](std::uint64_t key, const std::int32_t*, std::size_t) {
      order.push_back("a" + std::to_string(key));
      return true;
    };
    t.erase = [](std::uint64_t) { return true; };
    if (with_replay) {
      t.replay = [this](const std::uint64_t* words, std::size_t n, std::int32_t seconds) {
        order.push_back("c" + std::to_string(n ? words[0] : 0) + "@" + std::to_string(seconds));
        return commit;
      };
    }
    return t;
  }
};

bool throws_with(const std::string& dir, const RedoTarget& target, const char* needle) {
  try {
    recover_from_log(dir, 0, kColumns, target);
  } catch (const std::runtime_error& e) {
    return std::strstr(e.what(), needle) != nullptr;
  }
  return false;
}

}  // namespace

int main() {
  // Words of every size come back as they went in, with the record's zero padding after them.
  const std::vector<std::uint64_t> words = {0, 1, 127, 128, 16383, 16384, 1ULL << 40, ~0ULL >> 1, ~0ULL};
  PodVector<unsigned char> encoded;
  append_command(encoded, words.data(), words.size());
  std::vector<unsigned char> bytes(encoded.data(), encoded.data() + encoded.size());
  CHECK(bytes.size() == 1 + 1 + 1 + 1 + 2 + 2 + 3 + 6 + 9 + 10);
  std::vector<std::uint64_t> back;
  CHECK(decodes(bytes, back) && back == words);
  bytes.resize(bytes.size() + 7, 0);
  CHECK(decodes(bytes, back) && back == words);
  PodVector<unsigned char> empty;
  append_command(empty, nullptr, 0);
  CHECK(empty.size() == 1 && decode_command(empty.data(), empty.size(), back) && back.empty());

  // Refused: 8 bytes of padding, padding that is not zero, a command cut short, a count larger
  // than the bytes, a number of more than 64 bits.
  std::vector<unsigned char> bad = bytes;
  bad.push_back(0);
  CHECK(!decodes(bad, back));
  bad = bytes;
  bad.back() = 1;
  CHECK(!decodes(bad, back));
  bad.assign(bytes.begin(), bytes.begin() + 20);
  CHECK(!decodes(bad, back));
  CHECK(!decodes({0x7f, 1}, back));
  CHECK(!decodes({1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, back));

  // Recovery replays each command where its record is, with its wall seconds (aux).
  const std::string dir = islands_test::make_temp_dir("command-log");
  LogConfig config;
  config.mode = LogMode::group_commit;
  config.directory = dir;
  const std::string path = log_file_path(dir, 0);
  const std::int32_t image[2] = {7, 8};
  std::vector<unsigned char> redo1, redo2;
  append_redo_entry(redo1, 1, image, 2);
  append_redo_entry(redo2, 2, image, 2);
  PodVector<unsigned char> command;
  const std::uint64_t first[3] = {41, 5, 6};
  append_command(command, first, 3);
  {
    LogWriter log(config, path, 0, 0, 1);
    log.append(LogRecordType::commit, 1, 0, kColumns, redo1.data(), redo1.size());
    log.append(LogRecordType::command, 2, 1800000000u, kColumns, command.data(), command.size());
    log.append(LogRecordType::commit, 3, 0, kColumns, redo2.data(), redo2.size());
    log.close();
  }
  const LogFile file(path);
  CHECK(file.records().size() == 4 && file.records()[2].type() == LogRecordType::command);
  CHECK(file.records()[2].command == std::vector<std::uint64_t>(first, first + 3) && file.records()[2].redo_rows == 0);
  Replayed replayed;
  const RecoveryStats stats = recover_from_log(dir, 0, kColumns, replayed.target(true));
  CHECK(replayed.order == (std::vector<std::string>{"a1", "c41@1800000000", "a2"}));
  CHECK(stats.commands_replayed == 1 && stats.txns_redone == 3 && stats.rows_redone == 2);

  // A workload without replay, and a command that does not commit again: refused, with its LSN.
  const std::string lsn = std::to_string(file.records()[2].header.lsn);
  Replayed none;
  CHECK(throws_with(dir, none.target(false), ("the command at LSN " + lsn + " cannot be replayed").c_str()));
  Replayed diverged;
  diverged.commit = false;
  CHECK(throws_with(dir, diverged.target(true), "did not commit when executed again"));

  // A command record whose checksum verifies but whose payload is no command.
  const unsigned char junk[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  {
    LogWriter log(config, path, 0, 0, 1);
    log.append(LogRecordType::command, 4, 0, kColumns, junk, sizeof junk);
    log.close();
  }
  bool refused = false;
  try {
    const LogFile junk_file(path);
  } catch (const std::runtime_error& e) {
    refused = std::strstr(e.what(), "holds no valid command") != nullptr;
  }
  CHECK(refused);
  islands_test::remove_dir(dir);
  return 0;
}
