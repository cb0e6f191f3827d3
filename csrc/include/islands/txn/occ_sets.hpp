#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#include "islands/common/pod_vector.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/storage/row.hpp"

namespace islands {

//! One transaction's optimistic (Silo) state, kept in its TxnContext and driven by
//! OptimisticCc (cc/optimistic_cc.hpp): the rows it read with the TID each held, the rows it
//! writes with their private images (installed at commit), the rows it inserted (locked in
//! place until commit), and the arena the images live in. Under OCC a row's lock word is
//! [63] locked, [62..0] the TID of the commit that last wrote it (0: as loaded).
//! Its commit and abort steps are out of line: the locking schemes' commit, which checks
//! active() and skips them, stays as small as it was.
class OccSets {
 public:
  static constexpr std::uint64_t kLocked = 1ULL << 63;  //!< the lock bit of a row's word

  //! A row read: the TID it held when its image was copied.
  struct Read {
    Row* row;
    std::uint64_t tid;
  };
  //! A row written: its private image (Row::stride(columns) bytes) and the TID it held when
  //! the image was copied (a write is validated as a read: nothing may change it meanwhile).
  struct Write {
    Row* row;
    Row* image;
    std::uint32_t payload_bytes;  // bytes after the header, a multiple of 8
    std::uint64_t tid;
  };

  //! A fresh image of a row of `columns` payload columns, 8-byte aligned, valid until clear().
  Row* allocate(std::size_t columns) {
    const std::size_t words = Row::stride(columns) / 8;
    if (chunk_ == chunks_.size() || used_ + words > chunks_[chunk_].words) next_chunk(words);
    std::uint64_t* at = chunks_[chunk_].data.get() + used_;
    used_ += words;
    used_any_ = true;
    return new (at) Row();
  }
  //! Copies `row` (`columns` payload columns) into `image` as it stands when no commit holds
  //! it: returns the TID the copy goes with, or false after `spins` tries found it locked.
  //! Seqlock style: word, data, word again; the racing loads are relaxed atomics, so an
  //! installer's stores (also relaxed atomics, under the lock bit) are not a data race.
  static bool copy(const Row* row, Row* image, std::size_t columns, int spins, std::uint64_t& tid) {
    const std::size_t n = (Row::stride(columns) - sizeof(Row)) / 8;
    const auto* from = reinterpret_cast<const std::uint64_t*>(row->columns());
    auto* to = reinterpret_cast<std::uint64_t*>(image->columns());
    for (int attempt = 0; attempt < spins; ++attempt) {
      const std::uint64_t before = row->lock.load(std::memory_order_acquire);
      if (before & kLocked) {
        for (int i = 0; i < 16; ++i) cpu_relax();
        continue;
      }
      image->key = __atomic_load_n(&row->key, __ATOMIC_RELAXED);
      for (std::size_t i = 0; i < n; ++i) to[i] = __atomic_load_n(from + i, __ATOMIC_RELAXED);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (row->lock.load(std::memory_order_relaxed) == before) {
        tid = before;
        return true;
      }
    }
    return false;
  }
  //! The row an image was copied from (an image keeps it in its lock word).
  static Row* origin(Row* image) {
    return reinterpret_cast<Row*>(static_cast<std::uintptr_t>(image->lock.load(std::memory_order_relaxed)));
  }
  //! Marks `image` as the copy of `row`.
  static void set_origin(Row* image, Row* row) {
    image->lock.store(reinterpret_cast<std::uintptr_t>(row), std::memory_order_relaxed);
  }

  //! Records a read of `row` at `tid`.
  void read(Row* row, std::uint64_t tid) {
    reads_.push_back({row, tid});
    used_any_ = true;
  }
  //! Records a write of `row` through `image`, copied at `tid`.
  void write(Row* row, Row* image, std::size_t columns, std::uint64_t tid) {
    writes_.push_back({row, image, static_cast<std::uint32_t>(Row::stride(columns) - sizeof(Row)), tid});
    used_any_ = true;
  }
  //! The image this transaction writes `row` through, or nullptr.
  Row* written_image(const Row* row) const {
    for (const Write& w : writes_) {
      if (w.row == row) return w.image;
    }
    return nullptr;
  }
  //! Records a row inserted in place, locked by this transaction since it held `tid`.
  void inserted(Row* row, std::uint64_t tid) {
    inserts_.push_back({row, tid});
    used_any_ = true;
  }

  PodVector<Read>& reads() { return reads_; }     //!< the read set
  PodVector<Write>& writes() { return writes_; }  //!< the write set
  PodVector<Read>& inserts() { return inserts_; }  //!< rows inserted, locked in place
  //! Whether this transaction recorded anything (one branch in commit and abort when not).
  bool active() const { return used_any_; }
  //! The commit's TID (set by validation, with every written row locked), or 0.
  std::uint64_t& commit_tid() { return commit_tid_; }
  //! Whether the write set is locked (validation took its locks).
  bool& writes_locked() { return writes_locked_; }
  //! The last TID this context committed (Silo: each new TID exceeds it).
  std::uint64_t& last_tid() { return last_tid_; }

  //! Commit, with the write set locked: copies each image into its row. Throws
  //! std::logic_error when nothing validated the transaction (a caller skipped
  //! OptimisticCc::validate, which picks the commit TID).
  [[gnu::noinline]] void install() {
    if (commit_tid_ == 0) throw std::logic_error("occ: a transaction committed without validation");
    for (const Write& w : writes_) {
      const auto* from = reinterpret_cast<const std::uint64_t*>(w.image->columns());
      auto* to = reinterpret_cast<std::uint64_t*>(w.row->columns());
      for (std::size_t i = 0; i < w.payload_bytes / 8; ++i) __atomic_store_n(to + i, from[i], __ATOMIC_RELAXED);
    }
  }
  //! Commit, after install: publishes the commit TID on every written and inserted row,
  //! which unlocks them.
  [[gnu::noinline]] void unlock_committed() {
    for (const Write& w : writes_) w.row->lock.store(commit_tid_, std::memory_order_release);
    for (const Read& i : inserts_) i.row->lock.store(commit_tid_, std::memory_order_release);
    last_tid_ = std::max(last_tid_, commit_tid_);
  }
  //! Abort: unlocks what this transaction locked. Written rows are unchanged (their images
  //! were never installed) and get their TID back; inserted rows (rolled back, changed in
  //! place) get a TID one above theirs, so a reader that copied one fails validation.
  [[gnu::noinline]] void unlock_aborted() {
    if (writes_locked_) {
      for (const Write& w : writes_) w.row->lock.store(w.tid, std::memory_order_release);
    }
    for (const Read& i : inserts_) i.row->lock.store(i.tid + 1, std::memory_order_release);
  }
  //! Forgets the transaction (the arena's chunks are kept for the next one).
  [[gnu::noinline]] void clear() {
    reads_.clear();
    writes_.clear();
    inserts_.clear();
    chunk_ = 0;
    used_ = 0;
    commit_tid_ = 0;
    writes_locked_ = false;
    used_any_ = false;
  }

 private:
  static constexpr std::size_t kChunkWords = 8192;  // 64 KiB of images per chunk
  struct Chunk {
    std::unique_ptr<std::uint64_t[]> data;
    std::size_t words;
  };
  // allocate's slow path (out of line): moves on to a chunk with room for `words`.
  [[gnu::noinline]] void next_chunk(std::size_t words) {
    if (chunk_ < chunks_.size()) ++chunk_;
    used_ = 0;
    if (chunk_ == chunks_.size() || chunks_[chunk_].words < words) {
      const std::size_t size = std::max(kChunkWords, words);
      Chunk chunk{std::make_unique<std::uint64_t[]>(size), size};
      if (chunk_ == chunks_.size()) {
        chunks_.push_back(std::move(chunk));
      } else {
        chunks_[chunk_] = std::move(chunk);
      }
    }
  }
  PodVector<Read> reads_, inserts_;
  PodVector<Write> writes_;
  std::vector<Chunk> chunks_;
  std::size_t chunk_ = 0, used_ = 0;
  std::uint64_t commit_tid_ = 0, last_tid_ = 0;
  bool writes_locked_ = false, used_any_ = false;
};

}  // namespace islands
