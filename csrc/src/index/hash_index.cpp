#include "islands/index/hash_index.hpp"

#include <algorithm>

namespace islands {
namespace {

std::size_t next_power_of_two(std::size_t x) {
  std::size_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

// Partitions are sized so that each starts with at least this many slots.
constexpr std::size_t kMinPartitionSlots = 1024;
constexpr std::size_t kMaxPartitions = 4096;

}  // namespace

HashIndex::HashIndex(std::size_t expected_keys, bool latching) : latching_(latching) {
  const std::size_t slots = next_power_of_two(std::max<std::size_t>(2 * expected_keys, 16));
  const std::size_t partitions =
      std::clamp<std::size_t>(slots / kMinPartitionSlots, 1, kMaxPartitions);
  partitions_ = std::vector<Partition>(partitions);
  for (Partition& p : partitions_) allocate(p, std::max<std::size_t>(slots / partitions, 16));
}

void HashIndex::allocate(Partition& p, std::size_t capacity) {
  p.slots.reset(new Slot[capacity]);
  for (std::size_t i = 0; i < capacity; ++i) p.slots[i].key = kEmpty;
  p.mask = capacity - 1;
  p.count = 0;
}

HashIndex::Slot* HashIndex::find(const Partition& p, std::uint64_t h, std::uint64_t key) {
  for (std::uint64_t i = h & p.mask;; i = (i + 1) & p.mask) {
    Slot& slot = p.slots[i];
    if (slot.key == key) return &slot;
    if (slot.key == kEmpty) return nullptr;
  }
}

bool HashIndex::insert_unlatched(Partition& p, std::uint64_t h, std::uint64_t key,
                                 std::uint64_t value) {
  // Grow at a load factor of 1/2: linear probing stays short and the table never fills.
  if (2 * (p.count + 1) > p.mask + 1) grow(p);
  for (std::uint64_t i = h & p.mask;; i = (i + 1) & p.mask) {
    Slot& slot = p.slots[i];
    if (slot.key == key) return false;
    if (slot.key == kEmpty) {
      slot.key = key;
      slot.value = value;
      ++p.count;
      return true;
    }
  }
}

void HashIndex::grow(Partition& p) {
  std::unique_ptr<Slot[]> old = std::move(p.slots);
  const std::uint64_t old_capacity = p.mask + 1;
  allocate(p, old_capacity * 2);
  for (std::uint64_t i = 0; i < old_capacity; ++i) {
    if (old[i].key != kEmpty) insert_unlatched(p, hash(old[i].key), old[i].key, old[i].value);
  }
}

bool HashIndex::insert(std::uint64_t key, std::uint64_t value) {
  if (key == kEmpty) return false;  // reserved as the empty marker
  const std::uint64_t h = hash(key);
  Partition& p = partition_of(h);
  if (latching_) p.latch.lock();
  const bool inserted = insert_unlatched(p, h, key, value);
  if (latching_) p.latch.unlock();
  return inserted;
}

bool HashIndex::lookup(std::uint64_t key, std::uint64_t& value) const {
  const std::uint64_t h = hash(key);
  const Partition& p = partition_of(h);
  if (latching_) p.latch.lock_shared();
  const Slot* slot = find(p, h, key);
  if (slot) value = slot->value;
  if (latching_) p.latch.unlock_shared();
  return slot != nullptr;
}

bool HashIndex::update(std::uint64_t key, std::uint64_t value) {
  const std::uint64_t h = hash(key);
  Partition& p = partition_of(h);
  if (latching_) p.latch.lock();
  Slot* slot = find(p, h, key);
  if (slot) slot->value = value;
  if (latching_) p.latch.unlock();
  return slot != nullptr;
}

void HashIndex::prefetch(std::uint64_t key) const {
  const std::uint64_t h = hash(key);
  const Partition& p = partition_of(h);
  __builtin_prefetch(&p.slots[h & p.mask]);
}

std::size_t HashIndex::size() const {
  std::size_t n = 0;
  for (const Partition& p : partitions_) n += p.count;
  return n;
}

}  // namespace islands
