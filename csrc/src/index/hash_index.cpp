#include "islands/index/hash_index.hpp"

#include <algorithm>
#include <cassert>
#include <new>

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
  arrays_ = std::vector<PartitionArrays>(partitions);
  const std::size_t each = std::max<std::size_t>(slots / partitions, 16);
  slab_.reset(allocate_large(partitions * each * sizeof(Slot)));
  Slot* next = static_cast<Slot*>(slab_.get());
  for (Partition& p : partitions_) {
    allocate(p, each, next);
    next += each;
  }
}

void HashIndex::allocate(Partition& p, std::size_t capacity, Slot* memory) {
  const bool owned = memory == nullptr;
  std::unique_ptr<Slot[], FreeSlots> slots(owned ? static_cast<Slot*>(allocate_large(capacity * sizeof(Slot))) : memory,
                                           FreeSlots{owned});
  for (std::size_t i = 0; i < capacity; ++i) new (&slots[i]) Slot{kEmpty, 0};
  // The address and log2(capacity) in one word: allocate_large aligns to 64 bytes, and the slab
  // gives each partition a power of two of 16-byte slots (at least 16) from an aligned start.
  const auto address = reinterpret_cast<std::uintptr_t>(slots.get());
  assert(address % 64 == 0 && capacity > 0 && (capacity & (capacity - 1)) == 0);
  p.table.store(address | static_cast<std::uintptr_t>(__builtin_ctzll(capacity)), std::memory_order_release);
  arrays_of(p).arrays.push_back(std::move(slots));
}

bool HashIndex::insert_unlatched(Partition& p, std::uint64_t h, std::uint64_t key,
                                 std::uint64_t value) {
  // Grow at a load factor of 1/2: linear probing stays short and a table never fills.
  std::size_t& count = arrays_of(p).count;
  Table t = table_of(p, std::memory_order_relaxed);
  if (2 * (count + 1) > t.mask + 1) {
    grow(p);
    t = table_of(p, std::memory_order_relaxed);
  }
  for (std::uint64_t i = h & t.mask;; i = (i + 1) & t.mask) {
    Slot& slot = t.slots[i];
    if (slot.key == key) return false;
    if (slot.key == kEmpty) {
      __atomic_store_n(&slot.value, value, __ATOMIC_RELAXED);
      __atomic_store_n(&slot.key, key, __ATOMIC_RELAXED);
      ++count;
      return true;
    }
  }
}

void HashIndex::grow(Partition& p) {
  const Table old = table_of(p, std::memory_order_relaxed);
  allocate(p, (old.mask + 1) * 2);
  arrays_of(p).count = 0;
  for (std::uint64_t i = 0; i <= old.mask; ++i) {
    if (old.slots[i].key != kEmpty) {
      insert_unlatched(p, hash(old.slots[i].key), old.slots[i].key, old.slots[i].value);
    }
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

bool HashIndex::update(std::uint64_t key, std::uint64_t value) {
  const std::uint64_t h = hash(key);
  Partition& p = partition_of(h);
  if (latching_) p.latch.lock();
  Slot* slot = find(table_of(p, std::memory_order_relaxed), h, key);
  if (slot) __atomic_store_n(&slot->value, value, __ATOMIC_RELAXED);
  if (latching_) p.latch.unlock();
  return slot != nullptr;
}

bool HashIndex::erase(std::uint64_t key) {
  const std::uint64_t h = hash(key);
  Partition& p = partition_of(h);
  if (latching_) p.latch.lock();
  const Table t = table_of(p, std::memory_order_relaxed);
  Slot* slot = find(t, h, key);
  if (slot) {
    // Backward-shift deletion: move each later key of the run whose home is not in (gap, it]
    // into the gap, so that every key stays reachable from its home slot without tombstones.
    std::uint64_t gap = static_cast<std::uint64_t>(slot - t.slots);
    for (std::uint64_t j = (gap + 1) & t.mask;; j = (j + 1) & t.mask) {
      const std::uint64_t k = t.slots[j].key;
      if (k == kEmpty) break;
      const std::uint64_t home = hash(k) & t.mask;
      const bool stays = gap <= j ? (gap < home && home <= j) : (gap < home || home <= j);
      if (stays) continue;
      // Optimistic readers may load these words meanwhile: relaxed atomic stores (they retry
      // when the latch's version says a writer entered).
      __atomic_store_n(&t.slots[gap].value, t.slots[j].value, __ATOMIC_RELAXED);
      __atomic_store_n(&t.slots[gap].key, k, __ATOMIC_RELAXED);
      gap = j;
    }
    __atomic_store_n(&t.slots[gap].key, kEmpty, __ATOMIC_RELAXED);
    --arrays_of(p).count;
  }
  if (latching_) p.latch.unlock();
  return slot != nullptr;
}

std::size_t HashIndex::size() const {
  std::size_t n = 0;
  for (const PartitionArrays& a : arrays_) n += a.count;
  return n;
}

}  // namespace islands
