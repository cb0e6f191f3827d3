#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "islands/log/private_file.hpp"

namespace islands {

//! What a log record says. Redo payloads are sequences of redo entries (redo_entry.hpp).
enum class LogRecordType : std::uint8_t {
  file_header = 1,      //!< first record of a log file; lsn = the file's base LSN
  commit = 2,           //!< a local transaction committed; payload: its redo
  prepare = 3,          //!< a participant prepared its part; aux = coordinator instance; payload: redo
  decision_commit = 4,  //!< a coordinator decided commit; payload: aux participant instances (u32), then its own redo
  commit_prepared = 5,  //!< a participant learned the commit of its prepared part
  abort_prepared = 6,   //!< a participant learned the abort of its prepared part
  epoch = 7,            //!< an instance (re)started logging; aux = its epoch, part of every transaction id it makes
  command = 8,          //!< a local transaction committed (log.content = command); payload: its words
                        //!< (command_entry.hpp), executed again at recovery; aux = its wall_seconds
};

//! Fixed 32-byte record header, little-endian (the log is read on the machine that wrote it).
//! The checksum covers every byte of the record after itself; records are 8-byte aligned and
//! a record's LSN is its position in the log (base LSN of the file + offset), so a record
//! read from the wrong place never verifies.
struct LogRecordHeader {
  std::uint32_t crc = 0;      //!< CRC-32C of the record from `length` to its end
  std::uint32_t length = 0;   //!< whole record, header and padding included
  std::uint64_t lsn = 0;      //!< log sequence number = position of the record in the log
  std::uint64_t txn = 0;      //!< transaction id (0 for the file header)
  std::uint8_t type = 0;      //!< a LogRecordType
  std::uint8_t reserved = 0;  //!< 0
  std::uint16_t columns = 0;  //!< the widest row of the run that wrote it (0: no redo); a log fits one configuration
  std::uint32_t aux = 0;      //!< coordinator instance (prepare), participant count (decision_commit), epoch
};
static_assert(sizeof(LogRecordHeader) == 32, "log record header is 32 bytes");

//! Bytes a record with `payload` bytes takes (header, payload, padding to 8).
inline std::size_t log_record_size(std::size_t payload) { return (sizeof(LogRecordHeader) + payload + 7) / 8 * 8; }

//! Writes a record at `out` (log_record_size(n1 + n2) bytes): the header with its checksum,
//! then the two payload pieces, then zero padding.
void encode_log_record(unsigned char* out, LogRecordType type, std::uint64_t lsn, std::uint64_t txn,
                       std::uint32_t aux, std::uint16_t columns, const void* p1, std::size_t n1,
                       const void* p2, std::size_t n2);

//! One record read back from a log file.
struct LogRecord {
  LogRecordHeader header;
  std::uint64_t offset = 0;                 //!< byte offset in the file
  std::vector<std::uint32_t> participants;  //!< decision_commit: participant instances
  const unsigned char* redo = nullptr;      //!< redo entries, or a command's (valid while the LogFile lives)
  std::size_t redo_bytes = 0;               //!< bytes of them (and the record's padding)
  std::size_t redo_rows = 0;                //!< redo entries in this record (0 in a command)
  std::vector<std::uint64_t> command;       //!< a command record's words

  LogRecordType type() const { return static_cast<LogRecordType>(header.type); }
};

//! A whole log file read and verified. A torn or truncated tail (an invalid record with no
//! valid record after it) ends the log: `valid_bytes` is where it ends, `tail_note` says what
//! was cut. An invalid record followed by valid ones is corruption in the middle of the log:
//! reading throws std::runtime_error naming the file, the LSN and the file offset.
class LogFile {
 public:
  //! Reads and verifies `path` (in place, or a copy for a peer's log: FileAccess); throws
  //! std::runtime_error when it cannot be read or is corrupt.
  explicit LogFile(const std::string& path, FileAccess access = FileAccess::map);

  const std::vector<LogRecord>& records() const { return records_; }  //!< valid records, file header excluded
  std::uint64_t base_lsn() const { return base_lsn_; }       //!< LSN of the file's first byte
  std::uint64_t valid_bytes() const { return valid_bytes_; }  //!< bytes up to the end of the last valid record
  std::uint64_t file_bytes() const { return data_.size(); }   //!< bytes in the file
  std::uint64_t end_lsn() const { return base_lsn_ + valid_bytes_; }  //!< LSN after the last valid record
  const std::string& tail_note() const { return tail_note_; }  //!< empty, or what was cut at the tail

 private:
  bool valid_at(std::size_t offset, LogRecordHeader& header) const;

  std::string path_;
  MappedFile data_;  // records_ point into it
  std::vector<LogRecord> records_;
  std::uint64_t base_lsn_ = 0;
  std::uint64_t valid_bytes_ = 0;
  std::string tail_note_;
};

//! Path of instance `instance`'s log in `directory`.
std::string log_file_path(const std::string& directory, std::uint32_t instance);

}  // namespace islands
