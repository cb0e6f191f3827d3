#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "islands/storage/row.hpp"

namespace islands {

//! A checkpoint: every row of an instance as of log LSN `end_lsn`, taken at a quiescent point
//! (after a clean run, when every instance's log is durable), so that recovery loads it and
//! replays only the log after it. File: [magic u64][end_lsn u64][epoch u32][columns u32]
//! [rows u64][crc u32][pad u32], then one after-image per row (redo_entry.hpp; a delete entry
//! is refused); `columns` is
//! the widest row of the configuration that wrote it, the CRC-32C covers the header before it
//! and every entry. Written to a temporary file, synced and renamed.
struct SnapshotInfo {
  std::uint64_t end_lsn = 0;  //!< the log LSN the snapshot covers up to
  std::uint32_t epoch = 0;    //!< the epoch that took it
  std::uint64_t rows = 0;     //!< rows in it
};

//! Path of instance `instance`'s snapshot in `directory`.
std::string snapshot_path(const std::string& directory, std::uint32_t instance);

//! Calls f(row, columns) once per row to save (see write_snapshot).
using SnapshotRowVisitor = std::function<void(const Row&, std::size_t)>;

//! Writes a snapshot of the rows `for_each` visits (it calls its argument once per row, with
//! the row's payload columns); throws std::runtime_error (naming the file and the reason) when
//! it cannot.
void write_snapshot(const std::string& path, const SnapshotInfo& info, std::uint16_t columns,
                    const std::function<void(const SnapshotRowVisitor&)>& for_each);

//! Reads and verifies a snapshot, calling `apply(key, image, columns)` per row; throws
//! std::runtime_error for a missing, torn or corrupt file or another configuration's.
SnapshotInfo read_snapshot(const std::string& path, std::uint16_t columns,
                           const std::function<void(std::uint64_t, const std::int32_t*, std::size_t)>& apply);

}  // namespace islands
