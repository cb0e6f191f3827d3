#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace islands {

//! A fixed-width row: a lock word and an 8-byte key, then the payload of int32 columns.
//! Rows live in a Table's chunks and never move, so indexes hold plain pointers to them.
struct Row {
  std::atomic<std::uint64_t> lock{0};  //!< row lock word (see txn/row_lock.hpp); 0 when free
  std::uint64_t key = 0;               //!< primary key

  //! The key of a row whose insert was rolled back: it holds no data.
  static constexpr std::uint64_t kDeletedKey = ~std::uint64_t{0};
  bool deleted() const { return key == kDeletedKey; }  //!< an insert that was rolled back

  //! The payload columns that follow the header.
  std::int32_t* columns() { return reinterpret_cast<std::int32_t*>(this + 1); }
  const std::int32_t* columns() const { return reinterpret_cast<const std::int32_t*>(this + 1); }

  //! Bytes one row takes with `n_columns` payload columns (8-byte aligned).
  static constexpr std::size_t stride(std::size_t n_columns) {
    return (sizeof(Row) + n_columns * sizeof(std::int32_t) + 7) / 8 * 8;
  }
};

static_assert(sizeof(Row) == 16, "row header is a lock word and a key");

}  // namespace islands
