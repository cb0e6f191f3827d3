#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "islands/storage/row.hpp"

namespace islands {

//! Rows of one shape, partitioned into sites. Each site allocates its rows in chunks that the
//! site's owner thread touches first (so they land on its NUMA node); rows never move. A
//! released row's memory goes to its site's free list and a later allocate there reuses it
//! (chunks are only freed with the table).
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
  //! gets Row::kDeletedKey, for_each_row callers skip it, and a later allocate in `site` reuses it.
  void release(std::size_t site, Row* row);
  //! Reserves room for `rows` rows in `site` in one chunk (call from the owner thread).
  void reserve(std::size_t site, std::size_t rows);

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
  struct Site {
    std::mutex mutex;
    std::vector<Chunk> chunks;
    std::vector<Row*> free;  // released rows, reused first
    std::size_t rows = 0;
    std::atomic<std::size_t> bytes{0};  // read without the mutex by bytes()
  };
  static constexpr std::size_t kChunkRows = 4096;

  Chunk new_chunk(std::size_t rows) const;

  std::size_t columns_;
  std::size_t stride_;
  std::vector<std::unique_ptr<Site>> sites_;
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
