#pragma once
#include <cstddef>
#include <cstdint>
#include <atomic>
#include <memory>
#include <vector>

#include "islands/common/huge_pages.hpp"
#include "islands/common/optimistic_latch.hpp"

namespace islands {

//! Unique-key hash index from uint64 keys to uint64 values. The table is split into
//! independent power-of-two partitions chosen by the top bits of the hash; each partition is
//! an open-addressing, linear-probing table with its own optimistic latch and grows on its own.
//! Latched lookups write nothing shared (they validate a version and retry); inserts and
//! updates latch their partition exclusively. With latching off no latch is touched: only
//! safe when nothing inserts concurrently with other accesses (a single-threaded instance, or
//! a run whose keys are all loaded). The key ~0 is reserved (insert refuses it).
class HashIndex {
 public:
  //! expected_keys sizes the partitions so that loading them does not grow them.
  explicit HashIndex(std::size_t expected_keys, bool latching = true);

  //! Inserts key -> value; false (and no change) when the key is present.
  bool insert(std::uint64_t key, std::uint64_t value);
  //! Finds key; true and sets value when present.
  bool lookup(std::uint64_t key, std::uint64_t& value) const {
    const std::uint64_t h = hash(key);
    const Partition& p = partition_of(h);
    if (!latching_) {
      const Slot* slot = find(table_of(p, std::memory_order_relaxed), h, key);
      if (slot) value = slot->value;
      return slot != nullptr;
    }
    for (;;) {
      const std::uint64_t version = p.latch.read_begin();
      const Slot* slot = find(table_of(p, std::memory_order_acquire), h, key);
      const std::uint64_t found = slot ? __atomic_load_n(&slot->value, __ATOMIC_RELAXED) : 0;
      if (p.latch.read_valid(version)) {
        if (slot) value = found;
        return slot != nullptr;
      }
    }
  }
  //! Replaces the value of a present key; false when absent.
  bool update(std::uint64_t key, std::uint64_t value);
  //! Removes key; false when absent. Later keys of its probe run shift back into the gap
  //! (no tombstones), under the partition's latch, so optimistic readers retry.
  bool erase(std::uint64_t key);
  //! Brings the key's home slot into the cache (a one-shot transaction knows its keys ahead).
  //! Reads one 16-byte partition entry on the way (no other structure).
  void prefetch(std::uint64_t key) const {
    const std::uint64_t h = hash(key);
    const Table t = table_of(partition_of(h), std::memory_order_relaxed);
    __builtin_prefetch(&t.slots[h & t.mask]);
  }
  //! A hint for prefetching, not a lookup: the value of key as a glance at its probe run finds
  //! it, without the latch (engine.interleave reads a slot prefetch brought in, to prefetch
  //! what it points to). May miss a present key or, under a concurrent writer, return a stale
  //! value; never use the value for anything but a prefetch.
  bool peek(std::uint64_t key, std::uint64_t& value) const {
    // Relaxed atomic loads as an optimistic reader's, but nothing validated: a bounded walk (a
    // writer may be shifting the run) that may find nothing, which is fine for a hint.
    constexpr int kMaxSlots = 4;
    const std::uint64_t h = hash(key);
    const Table t = table_of(partition_of(h), std::memory_order_acquire);  // a grown array whole
    std::uint64_t i = h & t.mask;
    for (int n = 0; n < kMaxSlots; ++n, i = (i + 1) & t.mask) {
      const std::uint64_t k = __atomic_load_n(&t.slots[i].key, __ATOMIC_RELAXED);
      if (k == key) {
        value = __atomic_load_n(&t.slots[i].value, __ATOMIC_RELAXED);
        return true;
      }
      if (k == kEmpty) return false;
    }
    return false;
  }
  //! Number of keys.
  std::size_t size() const;

  //! Switches latching on or off (not while other threads use the index).
  void set_latching(bool on) { latching_ = on; }
  bool latching() const { return latching_; }  //!< whether operations take latches

 private:
  struct Slot {
    std::uint64_t key;
    std::uint64_t value;
  };
  // Frees an array allocate_large made for it; an array carved from the index's slab is not its to free.
  struct FreeSlots {
    FreeSlots() noexcept : owned(true) {}
    explicit FreeSlots(bool own) noexcept : owned(own) {}
    bool owned;
    void operator()(Slot* p) const {
      if (owned) FreeLarge{}(p);
    }
  };
  // A partition's slot array as a reader uses it.
  struct Table {
    Slot* slots;
    std::uint64_t mask;
  };
  // What a lookup reads of a partition, one cache line (no false sharing between partitions'
  // writers): its latch and its slot array's address with log2 of its capacity in the low 6
  // bits (every array is at least 64-byte aligned), one word so that a reader always sees a
  // matching array and mask, and no second structure to load before the slot (a prefetch is a
  // hash, this line, the slot).
  struct alignas(64) Partition {
    mutable OptimisticLatch latch;
    std::atomic<std::uintptr_t> table{0};
  };
  // What only writers read: the key count and every array the partition had, current last;
  // older ones are retired but kept readable for optimistic readers.
  struct PartitionArrays {
    std::size_t count = 0;
    std::vector<std::unique_ptr<Slot[], FreeSlots>> arrays;
  };
  static Table table_of(const Partition& p, std::memory_order order) {
    const std::uintptr_t word = p.table.load(order);
    return {reinterpret_cast<Slot*>(word & ~std::uintptr_t{63}), (std::uint64_t{1} << (word & 63)) - 1};
  }
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

  static std::uint64_t hash(std::uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ULL;
    key ^= key >> 33;
    return key;
  }
  // The top bits pick the partition (the multiply also handles a single partition); the low
  // bits pick the slot inside it.
  std::size_t partition_index(std::uint64_t h) const {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(h) * partitions_.size()) >> 64);
  }
  const Partition& partition_of(std::uint64_t h) const { return partitions_[partition_index(h)]; }
  Partition& partition_of(std::uint64_t h) { return partitions_[partition_index(h)]; }
  PartitionArrays& arrays_of(const Partition& p) { return arrays_[static_cast<std::size_t>(&p - partitions_.data())]; }
  // A new array of `capacity` (a power of two) empty slots for p: at `memory` (carved from the
  // slab) or its own.
  void allocate(Partition& p, std::size_t capacity, Slot* memory = nullptr);
  bool insert_unlatched(Partition& p, std::uint64_t h, std::uint64_t key, std::uint64_t value);
  static Slot* find(const Table& t, std::uint64_t h, std::uint64_t key) {
    for (std::uint64_t i = h & t.mask;; i = (i + 1) & t.mask) {
      Slot& slot = t.slots[i];
      const std::uint64_t k = __atomic_load_n(&slot.key, __ATOMIC_RELAXED);
      if (k == key) return &slot;
      if (k == kEmpty) return nullptr;
    }
  }
  void grow(Partition& p);

  std::vector<Partition> partitions_;
  std::vector<PartitionArrays> arrays_;  // partitions_[i]'s in arrays_[i]
  // Every partition's first array in one region, so that an index larger than a huge page is
  // backed by huge pages (common/huge_pages.hpp) however small its partitions are.
  std::unique_ptr<void, FreeLarge> slab_;
  bool latching_;
};

}  // namespace islands
