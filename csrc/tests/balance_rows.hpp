#pragma once
// Rows for the concurrency-control tests: `n` rows of `Columns` int32 payload columns, keys
// 0..n-1, column 0 (the balance) at `Initial`, the others 0, in 8-byte aligned storage.
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "islands/storage/row.hpp"

namespace islands_test {

template <std::size_t Columns, std::int32_t Initial>
struct BalanceRows {
  explicit BalanceRows(int n) : words(n * islands::Row::stride(Columns) / 8) {
    for (int i = 0; i < n; ++i) {
      islands::Row* row = new (words.data() + i * islands::Row::stride(Columns) / 8) islands::Row();
      row->key = static_cast<std::uint64_t>(i);
      row->columns()[0] = Initial;
      rows.push_back(row);
    }
  }
  std::vector<std::uint64_t> words;  // the rows' storage (zeroed: every other column is 0)
  std::vector<islands::Row*> rows;
};

}  // namespace islands_test
