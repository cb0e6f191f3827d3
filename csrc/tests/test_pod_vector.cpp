#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "check.hpp"
#include "islands/common/pod_vector.hpp"
#include "islands/log/redo_entry.hpp"

using namespace islands;

namespace {

struct Pair {
  std::uint64_t key;
  std::int32_t value;
};

}  // namespace

int main() {
  // Appends survive every growth, in order.
  PodVector<Pair> pairs;
  CHECK(pairs.empty() && pairs.data() == nullptr && pairs.begin() == pairs.end());
  for (std::uint64_t i = 0; i < 1000; ++i) pairs.push_back({i, static_cast<std::int32_t>(-i)});
  CHECK(pairs.size() == 1000 && pairs.capacity() >= 1000);
  bool in_order = true;
  for (std::uint64_t i = 0; i < pairs.size(); ++i) in_order &= pairs[i].key == i && pairs[i].value == -static_cast<std::int32_t>(i);
  CHECK(in_order);
  std::uint64_t sum = 0;
  for (const Pair& p : pairs) sum += p.key;
  CHECK(sum == 999 * 1000 / 2);

  // Shrinking and clearing keep the capacity (no allocation in the next transaction).
  const std::size_t capacity = pairs.capacity();
  const Pair* storage = pairs.data();
  pairs.truncate(10);
  CHECK(pairs.size() == 10 && pairs[9].key == 9 && pairs.capacity() == capacity);
  pairs.clear();
  CHECK(pairs.empty() && pairs.capacity() == capacity && pairs.data() == storage);
  pairs.push_back({7, 7});
  CHECK(pairs.data() == storage && pairs[0].key == 7);

  // append (a range) and grow_by (room to fill) across a growth.
  PodVector<unsigned char> bytes;
  const unsigned char text[] = "0123456789";
  bytes.append(text, 10);
  bytes.append(text, 0);
  unsigned char* room = bytes.grow_by(100);
  std::memset(room, 'x', 100);
  bytes.append(text + 5, 5);
  CHECK(bytes.size() == 115);
  CHECK(std::memcmp(bytes.data(), "0123456789", 10) == 0 && bytes[10] == 'x' && bytes[109] == 'x');
  CHECK(std::memcmp(bytes.data() + 110, "56789", 5) == 0);
  bytes.reserve(4096);
  CHECK(bytes.capacity() >= 4096 && bytes.size() == 115 && bytes[114] == '9');

  // A move takes the storage along and leaves the source empty.
  PodVector<unsigned char> moved(std::move(bytes));
  CHECK(moved.size() == 115 && moved[0] == '0' && bytes.empty() && bytes.data() == nullptr);
  PodVector<unsigned char> assigned;
  assigned.push_back(1);
  assigned = std::move(moved);
  CHECK(assigned.size() == 115 && assigned[114] == '9' && moved.empty());

  // A transaction's redo (a PodVector) holds the same bytes as the log's std::vector form,
  // padding zeroed, whatever the storage held before.
  const std::int32_t wide[3] = {1, -2, 3}, narrow[1] = {42};
  std::vector<unsigned char> reference;
  PodVector<unsigned char> redo;
  std::memset(redo.grow_by(64), 0xee, 64);  // leftovers of an earlier transaction
  redo.clear();
  append_redo_entry(reference, 7, wide, 3);
  append_redo_delete(reference, 11);
  append_redo_entry(reference, 12, narrow, 1);
  append_redo_entry(redo, 7, wide, 3);
  append_redo_delete(redo, 11);
  append_redo_entry(redo, 12, narrow, 1);
  CHECK(redo.size() == reference.size());
  CHECK(std::memcmp(redo.data(), reference.data(), reference.size()) == 0);

  return test_summary("test_pod_vector");
}
