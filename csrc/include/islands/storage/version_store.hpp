#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "islands/storage/row.hpp"

namespace islands {

//! The older versions of rows under snapshot isolation (cc/multi_version_cc.hpp): per row a
//! chain, newest first, of the versions the row held before its current one, each with the
//! commit timestamp it was written at (it was current from then until the next version's).
//! The row itself always holds the newest committed version, so a reader whose snapshot sees
//! it never comes here; only readers of older snapshots do.
//! - Kept beside the rows, keyed by address in striped maps (each stripe its mutex), rather
//!   than in a pointer per row: no row layout change for the other schemes, and a row no
//!   snapshot needs an old version of costs nothing.
//! - Garbage collection: a version is current from its timestamp to its successor's; it is
//!   needed only while some snapshot's read timestamp falls in that span. The collector is
//!   given the read timestamps that may (SnapshotClock::horizon: every open snapshot's and the
//!   counter at the scan, at or below every later snapshot's) and keeps only the versions one
//!   of them falls in, and those written after the scan; so below the watermark (the oldest)
//!   nothing stays, and a chain holds at most one version per open snapshot plus those newer
//!   than the scan. push() prunes the chain it extends and sweep() a whole stripe.
class VersionStore {
 public:
  static constexpr std::size_t kStripes = 1024;  //!< stripes (sweep() takes one at a time)

  //! What the store holds and has done (summed over stripes).
  struct Stats {
    std::uint64_t live = 0;       //!< versions held now
    std::uint64_t bytes = 0;      //!< bytes they take
    std::uint64_t created = 0;    //!< versions pushed so far
    std::uint64_t reclaimed = 0;  //!< versions freed by garbage collection (or forget)
    std::uint64_t chains = 0;     //!< rows with a chain
    //! the stripes' largest live counts summed: at least the most versions held at once
    std::uint64_t peak = 0;
  };

  //! An empty store.
  VersionStore() : stripes_(std::make_unique<Stripe[]>(kStripes)) {}
  //! Frees every version still held.
  ~VersionStore() {
    for (std::size_t s = 0; s < kStripes; ++s) {
      for (auto& [row, head] : stripes_[s].chains) free_chain(head);
    }
  }
  VersionStore(const VersionStore&) = delete;
  VersionStore& operator=(const VersionStore&) = delete;

  //! Keeps `row`'s current version (its key and `payload_bytes` of payload, written at `ts` by
  //! history id `writer`) as an old one, because a commit at `successor` replaces it; call with
  //! the row held so that nothing changes it meanwhile. Prunes the chain to what `reads` (read
  //! timestamps ascending, SnapshotClock::horizon) may read.
  void push(const Row* row, std::uint64_t ts, std::uint64_t writer, std::size_t payload_bytes, std::uint64_t successor,
            const std::vector<std::uint64_t>& reads) {
    auto* version = static_cast<Version*>(::operator new(sizeof(Version) + payload_bytes));
    version->ts = ts;
    version->writer = writer;
    version->key = __atomic_load_n(&row->key, __ATOMIC_RELAXED);
    version->bytes = static_cast<std::uint32_t>(payload_bytes);
    const auto* from = reinterpret_cast<const std::uint64_t*>(row->columns());
    auto* to = reinterpret_cast<std::uint64_t*>(version->payload());
    for (std::size_t i = 0; i < payload_bytes / 8; ++i) to[i] = __atomic_load_n(from + i, __ATOMIC_RELAXED);
    Stripe& s = stripe(row);
    std::lock_guard<std::mutex> guard(s.mutex);
    Version*& head = s.chains[row];
    version->older = head;
    head = version;
    ++s.created;
    ++s.live;
    s.bytes += sizeof(Version) + payload_bytes;
    s.peak = std::max(s.peak, s.live);
    prune(s, head, successor, reads);
    if (head == nullptr) s.chains.erase(row);
  }
  //! Copies into `image` (key and `payload_bytes` of payload) the newest old version of `row`
  //! written at or before `rts`; returns false when the row has none (it did not exist in that
  //! snapshot). `ts` and `writer` get the version's timestamp and history id.
  bool find(const Row* row, std::uint64_t rts, Row* image, std::size_t payload_bytes, std::uint64_t& ts,
            std::uint64_t& writer) {
    Stripe& s = stripe(row);
    std::lock_guard<std::mutex> guard(s.mutex);
    const auto it = s.chains.find(row);
    if (it == s.chains.end()) return false;
    for (const Version* v = it->second; v != nullptr; v = v->older) {
      if (v->ts > rts) continue;
      image->key = v->key;
      std::memcpy(image->columns(), v->payload(), std::min<std::size_t>(payload_bytes, v->bytes));
      ts = v->ts;
      writer = v->writer;
      return true;
    }
    return false;
  }
  //! Drops `row`'s chain (the row is being inserted anew: nothing before it is its history).
  void forget(const Row* row) {
    Stripe& s = stripe(row);
    std::lock_guard<std::mutex> guard(s.mutex);
    const auto it = s.chains.find(row);
    if (it == s.chains.end()) return;
    for (Version* v = it->second; v != nullptr;) {
      Version* older = v->older;
      release(s, v);
      v = older;
    }
    s.chains.erase(it);
  }
  //! Prunes every chain of stripe `index` to what `reads` may read, given each row's current
  //! timestamp (`current(row)`, or ~0 for a row being installed).
  template <class Current>
  void sweep(std::size_t index, const std::vector<std::uint64_t>& reads, Current&& current) {
    Stripe& s = stripes_[index % kStripes];
    std::lock_guard<std::mutex> guard(s.mutex);
    for (auto it = s.chains.begin(); it != s.chains.end();) {
      prune(s, it->second, current(it->first), reads);
      it = it->second == nullptr ? s.chains.erase(it) : std::next(it);
    }
  }
  //! Prunes every stripe (see sweep).
  template <class Current>
  void sweep_all(const std::vector<std::uint64_t>& reads, Current&& current) {
    for (std::size_t i = 0; i < kStripes; ++i) sweep(i, reads, current);
  }
  //! What the store holds now and has done (takes each stripe's mutex in turn).
  Stats stats() const {
    Stats out;
    for (std::size_t i = 0; i < kStripes; ++i) {
      Stripe& s = stripes_[i];
      std::lock_guard<std::mutex> guard(s.mutex);
      out.live += s.live;
      out.bytes += s.bytes;
      out.created += s.created;
      out.reclaimed += s.reclaimed;
      out.chains += s.chains.size();
      out.peak += s.peak;
    }
    return out;
  }

 private:
  struct Version {
    Version* older;
    std::uint64_t ts, writer, key;
    std::uint32_t bytes;
    std::byte* payload() { return reinterpret_cast<std::byte*>(this + 1); }
    const std::byte* payload() const { return reinterpret_cast<const std::byte*>(this + 1); }
  };
  struct alignas(64) Stripe {
    std::mutex mutex;
    std::unordered_map<const Row*, Version*> chains;
    std::uint64_t live = 0, bytes = 0, created = 0, reclaimed = 0, peak = 0;
  };

  Stripe& stripe(const Row* row) const {
    const auto a = reinterpret_cast<std::uintptr_t>(row);
    return stripes_[((a >> 4) ^ (a >> 14)) % kStripes];
  }
  static void release(Stripe& s, Version* v) {
    --s.live;
    ++s.reclaimed;
    s.bytes -= sizeof(Version) + v->bytes;
    ::operator delete(v);
  }
  static void free_chain(Version* v) {
    while (v != nullptr) {
      Version* older = v->older;
      ::operator delete(v);
      v = older;
    }
  }
  // Keeps of the chain at `head` (of a row whose current version has timestamp `current`) the
  // versions current over a span [ts, successor's ts) that one of `reads` (ascending, the last
  // the counter at the scan) falls in, and those written after the scan (a snapshot opened
  // since may read them).
  static void prune(Stripe& s, Version*& head, std::uint64_t current, const std::vector<std::uint64_t>& reads) {
    if (reads.empty()) return;      // nothing known: keep everything
    std::uint64_t upper = current;  // the successor's timestamp (in history, kept or not)
    for (Version** link = &head; *link != nullptr;) {
      Version* v = *link;
      const auto it = std::lower_bound(reads.begin(), reads.end(), v->ts);
      const std::uint64_t ts = v->ts;
      if (ts > reads.back() || (it != reads.end() && *it < upper)) {
        link = &v->older;
      } else {
        *link = v->older;
        release(s, v);
      }
      upper = ts;
    }
  }

  std::unique_ptr<Stripe[]> stripes_;
};

}  // namespace islands
