#include "islands/index/btree_index.hpp"

#include <algorithm>

namespace islands {

BTreeIndex::BTreeIndex(bool latching) : latching_(latching) {
  Leaf* leaf = new Leaf();
  leaf->leaf = true;
  leaf->count = 0;
  leaf->next = nullptr;
  root_ = leaf;
}

BTreeIndex::~BTreeIndex() { destroy(root_); }

void BTreeIndex::destroy(Node* node) {
  if (!node->leaf) {
    Inner* inner = static_cast<Inner*>(node);
    for (int i = 0; i <= inner->count; ++i) destroy(inner->children[i]);
    delete inner;
  } else {
    delete static_cast<Leaf*>(node);
  }
}

// Child i of an inner node holds keys in [keys[i-1], keys[i]).
const BTreeIndex::Leaf* BTreeIndex::find_leaf(std::uint64_t key) const {
  const Node* node = root_;
  while (!node->leaf) {
    const Inner* inner = static_cast<const Inner*>(node);
    const int count = std::min(inner->count, kInnerKeys);  // bounded even mid-split
    const int i = static_cast<int>(std::upper_bound(inner->keys, inner->keys + count, key) - inner->keys);
    node = inner->children[i];
  }
  return static_cast<const Leaf*>(node);
}

bool BTreeIndex::lookup(std::uint64_t key, std::uint64_t& value) const {
  for (;;) {
    const std::uint64_t version = latching_ ? latch_.read_begin() : 0;
    const Leaf* leaf = find_leaf(key);
    const int count = std::min(leaf->count, kLeafKeys);  // bounded even mid-split
    const std::uint64_t* at = std::lower_bound(leaf->keys, leaf->keys + count, key);
    const bool found = at != leaf->keys + count && *at == key;
    const std::uint64_t v = found ? leaf->values[at - leaf->keys] : 0;
    if (!latching_ || latch_.read_valid(version)) {
      if (found) value = v;
      return found;
    }
  }
}

bool BTreeIndex::update(std::uint64_t key, std::uint64_t value) {
  if (latching_) latch_.lock();
  Leaf* leaf = const_cast<Leaf*>(find_leaf(key));
  std::uint64_t* at = std::lower_bound(leaf->keys, leaf->keys + leaf->count, key);
  const bool found = at != leaf->keys + leaf->count && *at == key;
  if (found) leaf->values[at - leaf->keys] = value;
  if (latching_) latch_.unlock();
  return found;
}

bool BTreeIndex::erase(std::uint64_t key) {
  if (latching_) latch_.lock();
  Leaf* leaf = const_cast<Leaf*>(find_leaf(key));
  std::uint64_t* at = std::lower_bound(leaf->keys, leaf->keys + leaf->count, key);
  const bool found = at != leaf->keys + leaf->count && *at == key;
  if (found) {
    const auto i = at - leaf->keys;
    std::copy(leaf->keys + i + 1, leaf->keys + leaf->count, leaf->keys + i);
    std::copy(leaf->values + i + 1, leaf->values + leaf->count, leaf->values + i);
    --leaf->count;
    --size_;
  }
  if (latching_) latch_.unlock();
  return found;
}

bool BTreeIndex::insert(std::uint64_t key, std::uint64_t value) {
  if (latching_) latch_.lock();
  Split split;
  const bool inserted = insert_into(root_, key, value, split);
  if (split.happened) {
    Inner* root = new Inner();
    root->leaf = false;
    root->count = 1;
    root->keys[0] = split.separator;
    root->children[0] = root_;
    root->children[1] = split.right;
    root_ = root;
  }
  if (inserted) ++size_;
  if (latching_) latch_.unlock();
  return inserted;
}

bool BTreeIndex::insert_into(Node* node, std::uint64_t key, std::uint64_t value, Split& split) {
  if (node->leaf) {
    Leaf* leaf = static_cast<Leaf*>(node);
    const int pos = static_cast<int>(std::lower_bound(leaf->keys, leaf->keys + leaf->count, key) - leaf->keys);
    if (pos < leaf->count && leaf->keys[pos] == key) return false;
    if (leaf->count == kLeafKeys) {
      // Split in half; the new key goes into whichever half covers it.
      Leaf* right = new Leaf();
      right->leaf = true;
      const int keep = kLeafKeys / 2;
      right->count = kLeafKeys - keep;
      std::copy(leaf->keys + keep, leaf->keys + kLeafKeys, right->keys);
      std::copy(leaf->values + keep, leaf->values + kLeafKeys, right->values);
      leaf->count = keep;
      right->next = leaf->next;
      leaf->next = right;
      split = {true, right->keys[0], right};
      Split ignored;
      return insert_into(key < right->keys[0] ? static_cast<Node*>(leaf) : right, key, value, ignored);
    }
    std::copy_backward(leaf->keys + pos, leaf->keys + leaf->count, leaf->keys + leaf->count + 1);
    std::copy_backward(leaf->values + pos, leaf->values + leaf->count, leaf->values + leaf->count + 1);
    leaf->keys[pos] = key;
    leaf->values[pos] = value;
    ++leaf->count;
    return true;
  }

  Inner* inner = static_cast<Inner*>(node);
  const int i = static_cast<int>(std::upper_bound(inner->keys, inner->keys + inner->count, key) - inner->keys);
  Split child_split;
  const bool inserted = insert_into(inner->children[i], key, value, child_split);
  if (!child_split.happened) return inserted;

  // Place the child's separator at position i, then split this node if it overflowed.
  std::uint64_t keys[kInnerKeys + 1];
  Node* children[kInnerKeys + 2];
  std::copy(inner->keys, inner->keys + i, keys);
  keys[i] = child_split.separator;
  std::copy(inner->keys + i, inner->keys + inner->count, keys + i + 1);
  std::copy(inner->children, inner->children + i + 1, children);
  children[i + 1] = child_split.right;
  std::copy(inner->children + i + 1, inner->children + inner->count + 1, children + i + 2);
  const int total = inner->count + 1;
  if (total <= kInnerKeys) {
    std::copy(keys, keys + total, inner->keys);
    std::copy(children, children + total + 1, inner->children);
    inner->count = total;
    return inserted;
  }
  const int left_keys = total / 2;  // keys[left_keys] moves up
  Inner* right = new Inner();
  right->leaf = false;
  right->count = total - left_keys - 1;
  std::copy(keys, keys + left_keys, inner->keys);
  std::copy(children, children + left_keys + 1, inner->children);
  inner->count = left_keys;
  std::copy(keys + left_keys + 1, keys + total, right->keys);
  std::copy(children + left_keys + 1, children + total + 1, right->children);
  split = {true, keys[left_keys], right};
  return inserted;
}

int BTreeIndex::height() const {
  int levels = 1;
  for (const Node* node = root_; !node->leaf; node = static_cast<const Inner*>(node)->children[0]) ++levels;
  return levels;
}

}  // namespace islands
