#include "islands/storage/table.hpp"

#include "islands/common/huge_pages.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace islands {

Table::Table(std::size_t sites, std::size_t columns)
    : columns_(columns), stride_(Row::stride(columns)) {
  sites_.reserve(sites);
  for (std::size_t i = 0; i < sites; ++i) sites_.push_back(std::make_unique<Site>());
}

Table::~Table() {
  for (auto& site : sites_) {
    for (Chunk& chunk : site->chunks) std::free(chunk.data);
  }
}

Table::Chunk Table::new_chunk(std::size_t rows) const {
  // Cache-line aligned and left untouched here: the first write decides the NUMA node.
  // A site's reserve is one chunk of all its rows: huge pages where it is large.
  void* data = allocate_large(rows * stride_);
  return Chunk{static_cast<std::byte*>(data), rows, 0};
}

void Table::reserve(std::size_t site, std::size_t rows) {
  Site& s = *sites_.at(site);
  std::lock_guard<SpinMutex> guard(s.mutex);
  if (!s.chunks.empty() && s.chunks.back().capacity - s.chunks.back().used >= rows) return;
  s.chunks.push_back(new_chunk(rows));
  s.bytes.fetch_add(rows * stride_, std::memory_order_relaxed);
}

Row* Table::allocate(std::size_t site, std::uint64_t key) {
  Site& s = *sites_[site];
  std::lock_guard<SpinMutex> guard(s.mutex);
  std::byte* at;
  std::uint64_t word = 0;  // a reused row keeps its lock word: under occ its TID only grows
  Row* reused = nullptr;
  if (!s.free.empty()) {
    reused = s.free.back();
    s.free.pop_back();
  } else if (!s.limbo.empty()) {
    reused = take_waiting(s);
  }
  if (reused != nullptr) {
    at = reinterpret_cast<std::byte*>(reused);
    word = reused->lock.load(std::memory_order_relaxed);
  } else {
    if (s.chunks.empty() || s.chunks.back().used == s.chunks.back().capacity) {
      s.chunks.push_back(new_chunk(kChunkRows));
      s.bytes.fetch_add(kChunkRows * stride_, std::memory_order_relaxed);
    }
    Chunk& chunk = s.chunks.back();
    at = chunk.data + chunk.used * stride_;
    ++chunk.used;
  }
  ++s.rows;
  std::memset(at, 0, stride_);
  Row* row = new (at) Row();
  row->lock.store(word, std::memory_order_relaxed);
  row->key = key;
  return row;
}

Row* Table::take_waiting(Site& s) {
  // The oldest first: if it must wait, so must every later one. No fresh row is taken while
  // a waiting one is reusable (the gate scans again once its blocker moved on), so the rows
  // a table holds beyond its live ones are those released under still-running transactions.
  const Released& oldest = s.limbo.front();
  if (!gate_->reusable(oldest.stamp)) return nullptr;
  Row* row = oldest.row;
  s.limbo.pop_front();
  return row;
}

void Table::release(std::size_t site, Row* row) {
  Site& s = *sites_.at(site);
  std::lock_guard<SpinMutex> guard(s.mutex);
  row->key = Row::kDeletedKey;
  if (gate_ != nullptr) {
    s.limbo.push_back({row, gate_->stamp()});  // stamped under the mutex: ascending in the site
  } else {
    s.free.push_back(row);
  }
  --s.rows;
}

std::size_t Table::rows(std::size_t site) const { return sites_.at(site)->rows; }

std::size_t Table::waiting(std::size_t site) const {
  const Site& s = *sites_.at(site);
  std::lock_guard<SpinMutex> guard(s.mutex);
  return s.limbo.size();
}

std::size_t Table::bytes() const {
  std::size_t n = 0;
  for (const auto& site : sites_) n += site->bytes.load(std::memory_order_relaxed);
  return n;
}

}  // namespace islands
