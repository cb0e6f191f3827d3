#pragma once
#include <cstddef>
#include <cstdint>

#include "islands/common/optimistic_latch.hpp"

namespace islands {

//! Unique-key B+tree from uint64 keys to uint64 values, with ordered range scans through
//! linked leaves. Concurrency is one tree-wide optimistic latch: lookups descend without
//! writing anything shared and retry if an insert intervened; scans hold it shared; inserts
//! and updates hold it exclusively. Nodes are only freed with the tree, so an optimistic
//! reader never touches freed memory. Latching is switched off where the concurrency-control
//! mode already excludes conflicting index operations.
class BTreeIndex {
 public:
  explicit BTreeIndex(bool latching = true);
  ~BTreeIndex();
  BTreeIndex(const BTreeIndex&) = delete;
  BTreeIndex& operator=(const BTreeIndex&) = delete;

  //! Inserts key -> value; false (and no change) when the key is present.
  bool insert(std::uint64_t key, std::uint64_t value);
  //! Finds key; true and sets value when present.
  bool lookup(std::uint64_t key, std::uint64_t& value) const;
  //! Replaces the value of a present key; false when absent.
  bool update(std::uint64_t key, std::uint64_t value);
  //! Removes key; false when absent. Leaves are not merged (a leaf may become empty; inner
  //! separators stay valid bounds), which keeps nodes alive for optimistic readers.
  bool erase(std::uint64_t key);
  //! Calls f(key, value) for keys in [low, high] in ascending order while f returns true.
  template <class F>
  void scan(std::uint64_t low, std::uint64_t high, F&& f) const;
  //! No-op: tree descents cannot be prefetched ahead of the lookup (kept for a uniform API).
  void prefetch(std::uint64_t) const {}
  //! Number of keys.
  std::size_t size() const { return size_; }
  //! Levels from root to leaves (1 for a lone leaf).
  int height() const;

  //! Switches latching on or off (not while other threads use the index).
  void set_latching(bool on) { latching_ = on; }
  bool latching() const { return latching_; }  //!< whether operations take the latch

  static constexpr int kLeafKeys = 32;   //!< keys per leaf
  static constexpr int kInnerKeys = 31;  //!< separator keys per inner node (32 children)

 private:
  struct Node {
    bool leaf;
    int count;  // keys in use
    std::uint64_t keys[kLeafKeys];
  };
  struct Leaf : Node {
    std::uint64_t values[kLeafKeys];
    Leaf* next;
  };
  struct Inner : Node {
    Node* children[kInnerKeys + 1];
  };
  struct Split {
    bool happened = false;
    std::uint64_t separator = 0;
    Node* right = nullptr;
  };

  const Leaf* find_leaf(std::uint64_t key) const;
  bool insert_into(Node* node, std::uint64_t key, std::uint64_t value, Split& split);
  static void destroy(Node* node);

  Node* root_;
  std::size_t size_ = 0;
  alignas(64) mutable OptimisticLatch latch_;
  bool latching_;
};

template <class F>
void BTreeIndex::scan(std::uint64_t low, std::uint64_t high, F&& f) const {
  if (latching_) latch_.lock_shared();
  const Leaf* leaf = find_leaf(low);
  bool more = true;
  while (leaf && more) {
    for (int i = 0; i < leaf->count && more; ++i) {
      if (leaf->keys[i] < low) continue;
      if (leaf->keys[i] > high) {
        more = false;
        break;
      }
      more = f(leaf->keys[i], leaf->values[i]);
    }
    leaf = leaf->next;
  }
  if (latching_) latch_.unlock_shared();
}

}  // namespace islands
