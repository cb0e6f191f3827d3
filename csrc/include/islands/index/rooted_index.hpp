#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "islands/common/check.hpp"
#include "islands/index/btree_index.hpp"
#include "islands/index/hash_index.hpp"

namespace islands {

//! A multi-rooted index (paper 002's multi-rooted B+tree / per-partition hash): `roots`
//! independent sub-indexes of type Index (HashIndex or BTreeIndex), each key held by the one
//! root `RootOf` names for it. The workload's RootOf maps a key to the routing unit
//! (exec/routing_unit.hpp) that its `locate` gives every operation touching that key, so
//! that under PLP (engine.execution = plp, engine.plp_index = per_unit) a root is only ever
//! touched by the worker that owns its unit, and its latching is off.
//!
//! Why latch-free is safe there: PLP's partitions are the routing units, each owned by one
//! worker at a time (exec/plp/plp_routing.hpp); an action touches only the keys of the units it
//! was routed to, so two threads never use one root at once. When a re-partitioning moves a
//! unit to another worker, the old owner first drains it (nothing it coordinates or holds was
//! routed by the old table, its commits are durable) and acknowledges; the new owner starts on
//! it only after every acknowledgement. That hand-over (atomics with acquire/release) is the
//! happens-before edge between the old owner's last access to the root and the new owner's
//! first. Re-partitioning moves the ownership of roots, never rows or index entries: a root
//! stays where it is in memory and is handed over whole.
//!
//! Loading, recovery and the consistency checks run before the workers start or after they
//! stop (or each loader touches only its own sites' roots). Outside PLP there is one root
//! (today's single index, latched as the run says), or any number of roots with the run's
//! latching: a root's own latches then make it safe to share as before.
//!
//! Scans (BTreeIndex) stay inside one root: both bounds must map to the same root, checked.
//! RootOf: a copyable functor, std::size_t operator()(std::uint64_t key) const, returning a
//! root number; a number >= roots() means "no root of this index" (a key another instance
//! holds): lookups find nothing there, inserts refuse.
template <class Index, class RootOf>
class RootedIndex {
 public:
  //! `roots` sub-indexes sized for `expected_keys` keys in all; `root_of` maps keys to them.
  RootedIndex(std::size_t roots, std::size_t expected_keys, RootOf root_of, bool latching = true)
      : root_of_(std::move(root_of)),
        multi_(roots > 1),
        first_(make_root(per_root(roots, expected_keys), latching)) {
    ISLANDS_CHECK(roots > 0, "a rooted index needs at least one root");
    rest_.reserve(roots - 1);
    for (std::size_t r = 1; r < roots; ++r) {
      rest_.push_back(std::unique_ptr<Index>(new Index(make_root(per_root(roots, expected_keys), latching))));
    }
  }

  //! Inserts key -> value into its root; false (and no change) when present or of no root here.
  bool insert(std::uint64_t key, std::uint64_t value) {
    Index* r = root_for(key);
    return r && r->insert(key, value);
  }
  //! Finds key in its root; true and sets value when present.
  bool lookup(std::uint64_t key, std::uint64_t& value) const {
    const Index* r = root_for(key);
    return r && r->lookup(key, value);
  }
  //! Replaces the value of a present key; false when absent.
  bool update(std::uint64_t key, std::uint64_t value) {
    Index* r = root_for(key);
    return r && r->update(key, value);
  }
  //! Removes key from its root; false when absent.
  bool erase(std::uint64_t key) {
    Index* r = root_for(key);
    return r && r->erase(key);
  }
  //! Brings the key's slot into the cache (see Index::prefetch).
  void prefetch(std::uint64_t key) const {
    if (const Index* r = root_for(key)) r->prefetch(key);
  }
  //! A prefetching hint from the key's root (HashIndex::peek; hash roots only).
  bool peek(std::uint64_t key, std::uint64_t& value) const {
    const Index* r = root_for(key);
    return r && r->peek(key, value);
  }
  //! Calls f(key, value) for keys in [low, high] of one root, in order, while f returns true
  //! (BTreeIndex roots). Both bounds must map to the same root: a scan never crosses roots.
  template <class F>
  void scan(std::uint64_t low, std::uint64_t high, F&& f) const {
    if (!multi_) return first_.scan(low, high, std::forward<F>(f));
    const std::size_t r = root_of_(low);
    ISLANDS_CHECK(r == root_of_(high), "a rooted index scan crosses roots");
    if (r < roots()) root(r).scan(low, high, std::forward<F>(f));
  }

  //! The root number of key (>= roots() when this index holds no root for it).
  std::size_t root_of(std::uint64_t key) const { return root_of_(key); }
  //! Number of roots.
  std::size_t roots() const { return rest_.size() + 1; }
  //! Root r (tests, per-root figures).
  const Index& root(std::size_t r) const { return r == 0 ? first_ : *rest_[r - 1]; }
  //! Keys in every root.
  std::size_t size() const {
    std::size_t n = first_.size();
    for (const auto& r : rest_) n += r->size();
    return n;
  }
  //! Switches latching on or off in every root (not while other threads use the index).
  void set_latching(bool on) {
    first_.set_latching(on);
    for (auto& r : rest_) r->set_latching(on);
  }
  //! Whether the roots take their latches.
  bool latching() const { return first_.latching(); }

 private:
  static std::size_t per_root(std::size_t roots, std::size_t expected_keys) {
    return roots ? (expected_keys + roots - 1) / roots : expected_keys;
  }
  // A root built in place (guaranteed copy elision: BTreeIndex cannot move).
  static Index make_root(std::size_t expected_keys, bool latching) {
    if constexpr (std::is_same_v<Index, HashIndex>) {
      return HashIndex(expected_keys, latching);
    } else {
      (void)expected_keys;
      return Index(latching);
    }
  }
  Index* root_for(std::uint64_t key) const {
    if (!multi_) return &first_;  // one root: today's single index, held inline, no mapping
    const std::size_t r = root_of_(key);
    if (r == 0) return &first_;
    return r - 1 < rest_.size() ? rest_[r - 1].get() : nullptr;
  }

  RootOf root_of_;
  bool multi_;            // more than one root
  mutable Index first_;   // root 0, the whole index when there is one (inline: no extra load;
                          // mutable as the roots behind rest_ are: root_for hands both out)
  std::vector<std::unique_ptr<Index>> rest_;  // roots 1..roots()-1
};

}  // namespace islands
