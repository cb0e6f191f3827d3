#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace islands {

//! Redo entries: the after-image of one row, self-describing so that the tables of a workload
//! (rows of several widths, inserted rows) share one log and one snapshot format.
//! Layout: [u64 key][u32 columns][u32 reserved = 0][columns x int32][zero padding to 8 bytes].
//! Applying an entry overwrites the row of `key` or, for a table whose rows are inserted
//! (TPC-B's history), inserts it: the workload decides from the key (see its redo()).
constexpr std::size_t kRedoEntryHeader = 16;

//! Bytes one entry of `columns` payload columns takes.
inline std::size_t redo_entry_size(std::size_t columns) { return (kRedoEntryHeader + 4 * columns + 7) / 8 * 8; }

//! Appends the entry (key, the first `columns` columns at `image`) to `out`.
inline void append_redo_entry(std::vector<unsigned char>& out, std::uint64_t key, const std::int32_t* image,
                              std::size_t columns) {
  const std::size_t at = out.size();
  out.resize(at + redo_entry_size(columns), 0);
  const auto n = static_cast<std::uint32_t>(columns);
  std::memcpy(out.data() + at, &key, 8);
  std::memcpy(out.data() + at + 8, &n, 4);
  std::memcpy(out.data() + at + kRedoEntryHeader, image, 4 * columns);
}

//! Calls f(key, image, columns) for each entry of the `n` bytes at `data` (which need not be
//! aligned: every image is copied out first); returns how many there were. Fewer than 8
//! trailing bytes are record padding. Throws std::runtime_error when the bytes are not a
//! sequence of whole entries (a record whose checksum verified but whose content is not redo).
template <class F>
std::size_t for_each_redo_entry(const unsigned char* data, std::size_t n, F&& f) {
  std::vector<std::int32_t> image;
  std::size_t at = 0, entries = 0;
  while (n - at >= kRedoEntryHeader) {
    std::uint64_t key;
    std::uint32_t columns, reserved;
    std::memcpy(&key, data + at, 8);
    std::memcpy(&columns, data + at + 8, 4);
    std::memcpy(&reserved, data + at + 12, 4);
    if (reserved != 0 || columns == 0 || redo_entry_size(columns) > n - at) {
      throw std::runtime_error("redo entry " + std::to_string(entries) + " at byte " + std::to_string(at) +
                               " is malformed (" + std::to_string(columns) + " columns in " +
                               std::to_string(n - at) + " bytes)");
    }
    image.resize(columns);
    std::memcpy(image.data(), data + at + kRedoEntryHeader, 4u * columns);
    f(key, static_cast<const std::int32_t*>(image.data()), static_cast<std::size_t>(columns));
    at += redo_entry_size(columns);
    ++entries;
  }
  if (n - at >= 8) throw std::runtime_error("redo: " + std::to_string(n - at) + " trailing bytes are not an entry");
  return entries;
}

}  // namespace islands
