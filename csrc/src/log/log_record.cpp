#include "islands/log/log_record.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "islands/log/command_entry.hpp"
#include "islands/log/crc32c.hpp"
#include "islands/log/private_file.hpp"
#include "islands/log/redo_entry.hpp"

namespace islands {

void encode_log_record(unsigned char* out, LogRecordType type, std::uint64_t lsn, std::uint64_t txn,
                       std::uint32_t aux, std::uint16_t columns, const void* p1, std::size_t n1,
                       const void* p2, std::size_t n2) {
  const std::size_t size = log_record_size(n1 + n2);
  LogRecordHeader h;
  h.length = static_cast<std::uint32_t>(size);
  h.lsn = lsn;
  h.txn = txn;
  h.type = static_cast<std::uint8_t>(type);
  h.columns = columns;
  h.aux = aux;
  // The record is laid out in `out` first (header without its checksum, payload, padding),
  // then checksummed in one pass over it: the lines were just written, so the pass reads them
  // from L1, and one call instead of one per piece (header, each payload piece, padding) saves
  // each piece's set-up and tail: a TPC-C record's checksum took 386 instructions, now 252
  // (benchmarks/logging_instructions.py).
  if (size >= sizeof h + 8) std::memset(out + size - 8, 0, 8);  // the padding (0-7 bytes), before the payload
  std::memcpy(out, &h, sizeof h);
  unsigned char* p = out + sizeof h;
  if (n1) std::memcpy(p, p1, n1);
  if (n2) std::memcpy(p + n1, p2, n2);
  h.crc = crc32c(out + 4, size - 4);
  std::memcpy(out, &h.crc, sizeof h.crc);
}

std::string log_file_path(const std::string& directory, std::uint32_t instance) {
  return directory + "/instance-" + std::to_string(instance) + ".log";
}

LogFile::LogFile(const std::string& path, FileAccess access) : path_(path), data_(path, "log", access) {
  LogRecordHeader h;
  if (data_.size() < sizeof h) {
    // A crash while the file was being created: nothing was ever logged in it.
    tail_note_ = data_.empty() ? "" : "a torn file header (" + std::to_string(data_.size()) + " bytes) was cut";
    return;
  }
  std::memcpy(&h, data_.data(), sizeof h);
  if (h.type != static_cast<std::uint8_t>(LogRecordType::file_header) ||
      crc32c(data_.data() + 4, sizeof h - 4) != h.crc || h.length != sizeof h) {
    throw std::runtime_error("log: " + path + " does not start with a valid log file header");
  }
  base_lsn_ = h.lsn;
  std::size_t at = sizeof h;
  valid_bytes_ = at;
  while (at < data_.size()) {
    if (!valid_at(at, h)) {
      // Torn tail or corruption in the middle: look for any valid record further on.
      for (std::size_t next = at + 8; next + sizeof h <= data_.size(); next += 8) {
        LogRecordHeader later;
        if (valid_at(next, later)) {
          throw std::runtime_error("log: " + path + " is corrupt in the middle: the record at LSN " +
                                   std::to_string(base_lsn_ + at) + " (file offset " + std::to_string(at) +
                                   ") is invalid but valid records follow (LSN " + std::to_string(later.lsn) +
                                   " at offset " + std::to_string(next) + "); refusing to recover");
        }
      }
      tail_note_ = "log tail cut at LSN " + std::to_string(base_lsn_ + at) + " (file offset " + std::to_string(at) +
                   "): " + std::to_string(data_.size() - at) + " bytes of a torn or truncated record";
      break;
    }
    LogRecord r;
    r.header = h;
    r.offset = at;
    const unsigned char* payload = data_.data() + at + sizeof h;
    std::size_t payload_bytes = h.length - sizeof h;
    if (h.type == static_cast<std::uint8_t>(LogRecordType::decision_commit)) {
      r.participants.resize(h.aux);
      std::memcpy(r.participants.data(), payload, 4ull * h.aux);
      payload += 4ull * h.aux;
      payload_bytes -= 4ull * h.aux;
    }
    r.redo = payload;
    r.redo_bytes = payload_bytes;
    const auto invalid = [&](const std::string& what) {
      return std::runtime_error("log: " + path + ": the record at LSN " + std::to_string(h.lsn) + " (file offset " +
                                std::to_string(at) + ") verifies but holds no valid " + what);
    };
    if (h.type == static_cast<std::uint8_t>(LogRecordType::command)) {
      if (!decode_command(payload, payload_bytes, r.command)) throw invalid("command");
    } else {
      try {
        r.redo_rows = for_each_redo_entry(payload, payload_bytes, [](std::uint64_t, const std::int32_t*, std::size_t) {});
      } catch (const std::runtime_error& e) {
        throw invalid(std::string("redo: ") + e.what());
      }
    }
    records_.push_back(r);
    at += h.length;
    valid_bytes_ = at;
  }
}

bool LogFile::valid_at(std::size_t offset, LogRecordHeader& h) const {
  if (offset + sizeof h > data_.size()) return false;
  std::memcpy(&h, data_.data() + offset, sizeof h);
  if (h.length < sizeof h || h.length % 8 != 0 || h.length > data_.size() - offset) return false;
  if (h.lsn != base_lsn_ + offset) return false;
  if (h.type < static_cast<std::uint8_t>(LogRecordType::commit) ||
      h.type > static_cast<std::uint8_t>(LogRecordType::command)) {
    return false;
  }
  if (h.type == static_cast<std::uint8_t>(LogRecordType::decision_commit) &&
      4ull * h.aux > h.length - sizeof h) {
    return false;
  }
  return crc32c(data_.data() + offset + 4, h.length - 4) == h.crc;
}

}  // namespace islands
