#include "islands/index/hash_index.hpp"

#include <new>
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
  const std::size_t each = std::max<std::size_t>(slots / partitions, 16);
  slab_.reset(allocate_large(partitions * each * sizeof(Slot)));
  Slot* next = static_cast<Slot*>(slab_.get());
  for (Partition& p : partitions_) {
    allocate(p, each, next);
    next += each;
  }
}

void HashIndex::allocate(Partition& p, std::size_t capacity, Slot* memory) {
  auto array = std::make_unique<SlotArray>();
  const bool owned = memory == nullptr;
  array->slots = std::unique_ptr<Slot[], FreeSlots>(
      owned ? static_cast<Slot*>(allocate_large(capacity * sizeof(Slot))) : memory, FreeSlots{owned});
  for (std::size_t i = 0; i < capacity; ++i) new (&array->slots[i]) Slot{kEmpty, 0};
  array->mask = capacity - 1;
  p.table.store(array.get(), std::memory_order_release);
  p.arrays.push_back(std::move(array));
}

HashIndex::Slot* HashIndex::find(const SlotArray& t, std::uint64_t h, std::uint64_t key) {
  for (std::uint64_t i = h & t.mask;; i = (i + 1) & t.mask) {
    Slot& slot = t.slots[i];
    const std::uint64_t k = __atomic_load_n(&slot.key, __ATOMIC_RELAXED);
    if (k == key) return &slot;
    if (k == kEmpty) return nullptr;
  }
}

bool HashIndex::insert_unlatched(Partition& p, std::uint64_t h, std::uint64_t key,
                                 std::uint64_t value) {
  // Grow at a load factor of 1/2: linear probing stays short and a table never fills.
  SlotArray* t = p.table.load(std::memory_order_relaxed);
  if (2 * (p.count + 1) > t->mask + 1) {
    grow(p);
    t = p.table.load(std::memory_order_relaxed);
  }
  for (std::uint64_t i = h & t->mask;; i = (i + 1) & t->mask) {
    Slot& slot = t->slots[i];
    if (slot.key == key) return false;
    if (slot.key == kEmpty) {
      __atomic_store_n(&slot.value, value, __ATOMIC_RELAXED);
      __atomic_store_n(&slot.key, key, __ATOMIC_RELAXED);
      ++p.count;
      return true;
    }
  }
}

void HashIndex::grow(Partition& p) {
  const SlotArray* old = p.table.load(std::memory_order_relaxed);
  allocate(p, (old->mask + 1) * 2);
  p.count = 0;
  for (std::uint64_t i = 0; i <= old->mask; ++i) {
    if (old->slots[i].key != kEmpty) {
      insert_unlatched(p, hash(old->slots[i].key), old->slots[i].key, old->slots[i].value);
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

bool HashIndex::lookup(std::uint64_t key, std::uint64_t& value) const {
  const std::uint64_t h = hash(key);
  const Partition& p = partition_of(h);
  if (!latching_) {
    const Slot* slot = find(*p.table.load(std::memory_order_relaxed), h, key);
    if (slot) value = slot->value;
    return slot != nullptr;
  }
  for (;;) {
    const std::uint64_t version = p.latch.read_begin();
    const Slot* slot = find(*p.table.load(std::memory_order_acquire), h, key);
    const std::uint64_t found = slot ? __atomic_load_n(&slot->value, __ATOMIC_RELAXED) : 0;
    if (p.latch.read_valid(version)) {
      if (slot) value = found;
      return slot != nullptr;
    }
  }
}

bool HashIndex::update(std::uint64_t key, std::uint64_t value) {
  const std::uint64_t h = hash(key);
  Partition& p = partition_of(h);
  if (latching_) p.latch.lock();
  Slot* slot = find(*p.table.load(std::memory_order_relaxed), h, key);
  if (slot) __atomic_store_n(&slot->value, value, __ATOMIC_RELAXED);
  if (latching_) p.latch.unlock();
  return slot != nullptr;
}

bool HashIndex::erase(std::uint64_t key) {
  const std::uint64_t h = hash(key);
  Partition& p = partition_of(h);
  if (latching_) p.latch.lock();
  SlotArray& t = *p.table.load(std::memory_order_relaxed);
  Slot* slot = find(t, h, key);
  if (slot) {
    // Backward-shift deletion: move each later key of the run whose home is not in (gap, it]
    // into the gap, so that every key stays reachable from its home slot without tombstones.
    std::uint64_t gap = static_cast<std::uint64_t>(slot - t.slots.get());
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
    --p.count;
  }
  if (latching_) p.latch.unlock();
  return slot != nullptr;
}

void HashIndex::prefetch(std::uint64_t key) const {
  const std::uint64_t h = hash(key);
  const SlotArray* t = partition_of(h).table.load(std::memory_order_relaxed);
  __builtin_prefetch(&t->slots[h & t->mask]);
}

bool HashIndex::peek(std::uint64_t key, std::uint64_t& value) const {
  // Relaxed atomic loads as an optimistic reader's, but nothing validated: a bounded walk (a
  // writer may be shifting the run) that may find nothing, which is fine for a hint.
  constexpr int kMaxSlots = 4;
  const std::uint64_t h = hash(key);
  const SlotArray* t = partition_of(h).table.load(std::memory_order_acquire);  // a grown array whole
  std::uint64_t i = h & t->mask;
  for (int n = 0; n < kMaxSlots; ++n, i = (i + 1) & t->mask) {
    const std::uint64_t k = __atomic_load_n(&t->slots[i].key, __ATOMIC_RELAXED);
    if (k == key) {
      value = __atomic_load_n(&t->slots[i].value, __ATOMIC_RELAXED);
      return true;
    }
    if (k == kEmpty) return false;
  }
  return false;
}

std::size_t HashIndex::size() const {
  std::size_t n = 0;
  for (const Partition& p : partitions_) n += p.count;
  return n;
}

}  // namespace islands
