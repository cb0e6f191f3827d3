#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "islands/common/pod_vector.hpp"

namespace islands {

//! Redo entries, self-describing so that the tables of a workload (rows of several widths,
//! inserted and deleted rows) share one log and one snapshot format. Two kinds:
//!   after-image: [u64 key][u32 columns >= 1][u32 kind = 0][columns x int32][zero padding to 8 bytes]
//!   delete:      [u64 key][u32 columns = 0][u32 kind = 1]                   (16 bytes)
//! The kind word was a reserved zero before deletes were logged, so older logs and snapshots
//! (after-images only) read unchanged; any other kind is refused as malformed.
//! Applying an after-image overwrites the row of `key` (or, when it is narrower than the row,
//! the row's first `columns` columns) or, for a table whose rows are inserted, inserts it;
//! applying a delete removes the row of `key` from its table and every index: the workload
//! decides from the key (see its redo() and redo_delete()).
constexpr std::size_t kRedoEntryHeader = 16;

//! What an entry does (its kind word).
enum class RedoKind : std::uint32_t {
  after_image = 0,  //!< the row's new columns
  erase = 1,        //!< the row is deleted
};
static_assert(static_cast<std::uint32_t>(RedoKind::after_image) == 0, "encode_redo_entry writes kind 0");

//! `n` zero bytes appended to `out`; returns the first.
inline unsigned char* grow_zeroed(std::vector<unsigned char>& out, std::size_t n) {
  const std::size_t at = out.size();
  out.resize(at + n, 0);
  return out.data() + at;
}
inline unsigned char* grow_zeroed(PodVector<unsigned char>& out, std::size_t n) {
  unsigned char* at = out.grow_by(n);
  std::memset(at, 0, n);
  return at;
}
//! `n` bytes appended to `out` for the caller to fill; returns the first (a std::vector zeroes
//! them, a PodVector leaves them as they are: a transaction's redo writes each byte once).
inline unsigned char* grow_for(std::vector<unsigned char>& out, std::size_t n) { return grow_zeroed(out, n); }
inline unsigned char* grow_for(PodVector<unsigned char>& out, std::size_t n) { return out.grow_by(n); }

//! Bytes one after-image of `columns` payload columns takes (a delete: redo_entry_size(0)).
inline std::size_t redo_entry_size(std::size_t columns) { return (kRedoEntryHeader + 4 * columns + 7) / 8 * 8; }

//! Writes the after-image (key, the first `columns` columns at `image`) at `at`, every one of
//! its redo_entry_size(columns) bytes: the header's two words, the columns, the padding (four
//! zero bytes after an odd number of columns).
inline void encode_redo_entry(unsigned char* at, std::uint64_t key, const std::int32_t* image, std::size_t columns) {
  const std::uint64_t shape = static_cast<std::uint32_t>(columns);  // [u32 columns][u32 kind = after_image]
  std::memcpy(at, &key, 8);
  std::memcpy(at + 8, &shape, 8);
  std::memcpy(at + kRedoEntryHeader, image, 4 * columns);
  if (columns & 1) std::memset(at + kRedoEntryHeader + 4 * columns, 0, 4);
}

//! Appends the after-image (key, the first `columns` columns at `image`) to `out`.
//! `out`: a std::vector<unsigned char> or a PodVector<unsigned char> (a transaction's redo).
template <class Bytes>
void append_redo_entry(Bytes& out, std::uint64_t key, const std::int32_t* image, std::size_t columns) {
  encode_redo_entry(grow_for(out, redo_entry_size(columns)), key, image, columns);
}

//! Appends a delete of the row of `key` to `out`.
template <class Bytes>
void append_redo_delete(Bytes& out, std::uint64_t key) {
  unsigned char* at = grow_zeroed(out, kRedoEntryHeader);
  const auto kind = static_cast<std::uint32_t>(RedoKind::erase);
  std::memcpy(at, &key, 8);
  std::memcpy(at + 12, &kind, 4);
}

//! Calls f(key, image, columns) for each entry of the `n` bytes at `data` (which need not be
//! aligned: every image is copied out first), f(key, nullptr, 0) for a delete; returns how
//! many entries there were. Fewer than 8 trailing bytes are record padding. Throws
//! std::runtime_error when the bytes are not a sequence of whole entries (a record whose
//! checksum verified but whose content is not redo): an entry cut short, an after-image of
//! zero columns, a delete with columns, an unknown kind.
template <class F>
std::size_t for_each_redo_entry(const unsigned char* data, std::size_t n, F&& f) {
  std::vector<std::int32_t> image;
  std::size_t at = 0, entries = 0;
  while (n - at >= kRedoEntryHeader) {
    std::uint64_t key;
    std::uint32_t columns, kind;
    std::memcpy(&key, data + at, 8);
    std::memcpy(&columns, data + at + 8, 4);
    std::memcpy(&kind, data + at + 12, 4);
    const bool erase = kind == static_cast<std::uint32_t>(RedoKind::erase);
    const bool valid = erase ? columns == 0
                             : kind == static_cast<std::uint32_t>(RedoKind::after_image) && columns != 0 &&
                                   redo_entry_size(columns) <= n - at;
    if (!valid) {
      throw std::runtime_error("redo entry " + std::to_string(entries) + " at byte " + std::to_string(at) +
                               " is malformed (kind " + std::to_string(kind) + ", " + std::to_string(columns) +
                               " columns in " + std::to_string(n - at) + " bytes)");
    }
    if (erase) {
      f(key, static_cast<const std::int32_t*>(nullptr), std::size_t{0});
    } else {
      image.resize(columns);
      std::memcpy(image.data(), data + at + kRedoEntryHeader, 4u * columns);
      f(key, static_cast<const std::int32_t*>(image.data()), static_cast<std::size_t>(columns));
    }
    at += redo_entry_size(columns);
    ++entries;
  }
  if (n - at >= 8) throw std::runtime_error("redo: " + std::to_string(n - at) + " trailing bytes are not an entry");
  return entries;
}

}  // namespace islands
