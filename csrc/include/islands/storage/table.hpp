#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "islands/common/spin_latch.hpp"
#include "islands/storage/epoch_gate.hpp"
#include "islands/storage/row.hpp"

namespace islands {

//! Rows of one shape, partitioned into sites. Each site allocates its rows in chunks that the
//! site's owner thread touches first (so they land on its NUMA node); rows never move. A
//! released row's memory is reused by a later allocate in its site (chunks are only freed
//! with the table).
//!
//! Reuse while transactions run: another transaction may still hold a pointer to a released
//! row (it found the row through an index before the delete: two concurrent TPC-C Deliveries
//! under occ, a 2PL reader waiting for the deleter's lock, an mvcc reader of the row's history)
//! and would see it zeroed and re-keyed, or find its old lock word or TID restored (ABA). With
//! a reclamation gate (set_reclaim_gate; an instance whose workload deletes rows during a run
//! sets one) a released row waits in its site's limbo, stamped, until every transaction that
//! was running when it was released has finished (storage/epoch_gate.hpp); allocate takes a
//! fresh row meanwhile. Without a gate a released row is reused at once: only for tables one
//! thread uses (loading, recovery, the consistency checks, unit tests), where no other
//! transaction can hold the pointer.
class Table {
 public:
  //! sites: number of partitions; columns: int32 payload columns per row.
  Table(std::size_t sites, std::size_t columns);
  ~Table();
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  //! A new zero-filled row in `site` with `key`; safe to call from several threads.
  Row* allocate(std::size_t site, std::uint64_t key);
  //! Gives a row back (its key already erased from every index and no lock held on it): it
  //! gets Row::kDeletedKey, for_each_row callers skip it, and a later allocate in `site` reuses
  //! it (with a gate: once no transaction running now can hold it).
  void release(std::size_t site, Row* row);
  //! Released rows wait for `gate` from now on (nullptr: reused at once); set before the
  //! workers start. The gate must outlive the table's releases and allocations.
  void set_reclaim_gate(EpochGate* gate) { gate_ = gate; }
  //! Released rows of a site not yet reusable (waiting for the gate).
  std::size_t waiting(std::size_t site) const;
  //! Reserves room for `rows` rows in `site` in one chunk (call from the owner thread).
  void reserve(std::size_t site, std::size_t rows);

  //! Rows of the chunk a site allocates when it outgrows what it reserved.
  static constexpr std::size_t kChunkRows = 4096;
  std::size_t columns() const { return columns_; }     //!< payload columns per row
  std::size_t row_stride() const { return stride_; }   //!< bytes per row
  std::size_t sites() const { return sites_.size(); }  //!< number of sites
  std::size_t rows(std::size_t site) const;           //!< rows in use in a site (allocated, not released)
  std::size_t bytes() const;                          //!< bytes of every site's chunks (memory held); any thread
  //! Bytes `rows` rows of `columns` payload columns take (what a load will allocate).
  static std::size_t bytes_for(std::size_t rows, std::size_t columns) { return rows * Row::stride(columns); }
  //! Calls f(Row&) on every row of a site, in allocation order.
  template <class F>
  void for_each_row(std::size_t site, F&& f) const;

 private:
  struct Chunk {
    std::byte* data;
    std::size_t capacity;
    std::size_t used;
  };
  struct Released {
    Row* row;
    std::uint64_t stamp;  // EpochGate::stamp at its release
  };
  struct Site {
    // A spin latch: taken by every insert, held for a few stores, contended only where workers
    // share a site; its lock and unlock are a few inline instructions, a futex mutex's two calls.
    mutable SpinMutex mutex;
    std::vector<Chunk> chunks;
    std::vector<Row*> free;        // released rows reusable now (no gate), reused first
    std::deque<Released> limbo;    // released rows waiting for the gate, stamps ascending
    std::size_t rows = 0;
    std::atomic<std::size_t> bytes{0};  // read without the mutex by bytes()
  };
  // A row from the site's limbo that the gate says is safe, or nullptr (under s.mutex).
  Row* take_waiting(Site& s);

  Chunk new_chunk(std::size_t rows) const;

  std::size_t columns_;
  std::size_t stride_;
  std::vector<std::unique_ptr<Site>> sites_;
  EpochGate* gate_ = nullptr;
};

template <class F>
void Table::for_each_row(std::size_t site, F&& f) const {
  for (const Chunk& chunk : sites_[site]->chunks) {
    for (std::size_t i = 0; i < chunk.used; ++i) {
      f(*reinterpret_cast<Row*>(chunk.data + i * stride_));
    }
  }
}

}  // namespace islands
