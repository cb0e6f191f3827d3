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
  bool lookup(std::uint64_t key, std::uint64_t& value) const;
  //! Replaces the value of a present key; false when absent.
  bool update(std::uint64_t key, std::uint64_t value);
  //! Removes key; false when absent. Later keys of its probe run shift back into the gap
  //! (no tombstones), under the partition's latch, so optimistic readers retry.
  bool erase(std::uint64_t key);
  //! Brings the key's home slot into the cache (a one-shot transaction knows its keys ahead).
  void prefetch(std::uint64_t key) const;
  //! A hint for prefetching, not a lookup: the value of key as a glance at its probe run finds
  //! it, without the latch (engine.interleave reads a slot prefetch brought in, to prefetch
  //! what it points to). May miss a present key or, under a concurrent writer, return a stale
  //! value; never use the value for anything but a prefetch.
  bool peek(std::uint64_t key, std::uint64_t& value) const;
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
  // One partition's slots with their mask, replaced whole when the partition grows so that
  // a reader always sees a matching pointer and mask.
  // Frees an array allocate_large made for it; an array carved from the index's slab is not its to free.
  struct FreeSlots {
    FreeSlots() noexcept : owned(true) {}
    explicit FreeSlots(bool own) noexcept : owned(own) {}
    bool owned;
    void operator()(Slot* p) const {
      if (owned) FreeLarge{}(p);
    }
  };
  struct SlotArray {
    std::uint64_t mask;
    std::unique_ptr<Slot[], FreeSlots> slots;
  };
  struct Partition {
    mutable OptimisticLatch latch;
    std::atomic<SlotArray*> table{nullptr};
    std::size_t count = 0;
    std::vector<std::unique_ptr<SlotArray>> arrays;  // current last; older ones retired, kept
                                                     // readable for optimistic readers
  };
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
  // A new array of `capacity` empty slots for p: at `memory` (carved from the slab) or its own.
  static void allocate(Partition& p, std::size_t capacity, Slot* memory = nullptr);
  static bool insert_unlatched(Partition& p, std::uint64_t h, std::uint64_t key, std::uint64_t value);
  static Slot* find(const SlotArray& t, std::uint64_t h, std::uint64_t key);
  static void grow(Partition& p);

  std::vector<Partition> partitions_;
  // Every partition's first array in one region, so that an index larger than a huge page is
  // backed by huge pages (common/huge_pages.hpp) however small its partitions are.
  std::unique_ptr<void, FreeLarge> slab_;
  bool latching_;
};

}  // namespace islands
