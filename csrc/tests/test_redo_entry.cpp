#include <cstdint>
#include <stdexcept>
#include <vector>

#include "check.hpp"
#include "islands/log/redo_entry.hpp"

using namespace islands;

namespace {

bool throws(const std::vector<unsigned char>& bytes, std::size_t n) {
  try {
    for_each_redo_entry(bytes.data(), n, [](std::uint64_t, const std::int32_t*, std::size_t) {});
  } catch (const std::runtime_error&) {
    return true;
  }
  return false;
}

}  // namespace

int main() {
  // Entries of two widths (two tables) in one buffer, each padded to 8 bytes.
  const std::int32_t wide[3] = {1, -2, 3}, narrow[1] = {42};
  std::vector<unsigned char> bytes;
  append_redo_entry(bytes, 7, wide, 3);
  append_redo_entry(bytes, (std::uint64_t{4} << 48) | 9, narrow, 1);
  CHECK(bytes.size() == redo_entry_size(3) + redo_entry_size(1));
  CHECK(redo_entry_size(3) == 32 && redo_entry_size(1) == 24);

  // Read back, also from an address that is not 8-byte aligned (after a decision's participants).
  for (std::size_t shift : {0u, 4u}) {
    std::vector<unsigned char> shifted(shift, 0xee);
    shifted.insert(shifted.end(), bytes.begin(), bytes.end());
    shifted.resize(shifted.size() + 4, 0);  // record padding
    std::vector<std::uint64_t> keys;
    std::vector<std::int32_t> values;
    const std::size_t n = for_each_redo_entry(shifted.data() + shift, shifted.size() - shift,
                                              [&](std::uint64_t key, const std::int32_t* image, std::size_t columns) {
                                                keys.push_back(key);
                                                values.insert(values.end(), image, image + columns);
                                              });
    CHECK(n == 2);
    CHECK(keys == (std::vector<std::uint64_t>{7, (std::uint64_t{4} << 48) | 9}));
    CHECK(values == (std::vector<std::int32_t>{1, -2, 3, 42}));
  }

  // Nothing at all, or padding alone: no entries.
  CHECK(for_each_redo_entry(bytes.data(), 0, [](std::uint64_t, const std::int32_t*, std::size_t) {}) == 0);
  // Malformed: an entry cut short, zero columns, a non-zero reserved word, a trailing word.
  CHECK(throws(bytes, bytes.size() - 8));
  std::vector<unsigned char> zero = bytes;
  zero[8] = zero[9] = zero[10] = zero[11] = 0;
  CHECK(throws(zero, zero.size()));
  std::vector<unsigned char> reserved = bytes;
  reserved[12] = 1;
  CHECK(throws(reserved, reserved.size()));
  std::vector<unsigned char> trailing = bytes;
  trailing.resize(trailing.size() + 8, 0);
  CHECK(throws(trailing, trailing.size()));

  // Deletes (16 bytes, no image) between after-images, in order.
  std::vector<unsigned char> mixed;
  append_redo_entry(mixed, 7, wide, 3);
  append_redo_delete(mixed, 11);
  append_redo_entry(mixed, 12, narrow, 1);
  append_redo_delete(mixed, 13);
  CHECK(mixed.size() == redo_entry_size(3) + redo_entry_size(0) + redo_entry_size(1) + redo_entry_size(0));
  CHECK(redo_entry_size(0) == kRedoEntryHeader);
  std::vector<std::uint64_t> order, deleted;
  const std::size_t entries =
      for_each_redo_entry(mixed.data(), mixed.size(), [&](std::uint64_t key, const std::int32_t* image, std::size_t columns) {
        order.push_back(key);
        if (image == nullptr) {
          CHECK(columns == 0);
          deleted.push_back(key);
        } else {
          CHECK(columns == (key == 7 ? 3u : 1u) && image[0] == (key == 7 ? 1 : 42));
        }
      });
  CHECK(entries == 4);
  CHECK(order == (std::vector<std::uint64_t>{7, 11, 12, 13}));
  CHECK(deleted == (std::vector<std::uint64_t>{11, 13}));
  // An entry written before deletes were logged (kind word 0) is still an after-image.
  CHECK(mixed[redo_entry_size(3) + 12] == 1 && mixed[12] == 0);
  // Malformed deletes: one with columns, an unknown kind, a delete cut short.
  std::vector<unsigned char> with_columns = mixed;
  with_columns[redo_entry_size(3) + 8] = 1;  // the delete of key 11 claims a column
  CHECK(throws(with_columns, with_columns.size()));
  std::vector<unsigned char> unknown = mixed;
  unknown[redo_entry_size(3) + 12] = 2;
  CHECK(throws(unknown, unknown.size()));
  CHECK(throws(mixed, redo_entry_size(3) + 8 + 1));
  return test_summary("test_redo_entry");
}
