#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "islands/storage/row.hpp"
#include "islands/storage/table.hpp"

namespace islands {

//! One table of a workload's load as a function of its settings: what a load allocates, known
//! before anything is (memory admission), and what a loaded instance must then hold. A
//! workload declares its tables with `static std::vector<TableLoad> load_size(const Config&)`
//! (exec/workload_interface.hpp).
struct TableLoad {
  std::string name;                      //!< the table's name (as table_rows() names it)
  std::size_t columns = 0;               //!< int32 payload columns of a row
  double rows_per_site = 0;              //!< rows each site holds after the load (the mean, when drawn)
  std::uint64_t min_rows_per_site = 0;   //!< fewest rows a site can hold after the load
  std::uint64_t max_rows_per_site = 0;   //!< most rows a site can hold after the load
  std::uint64_t rows_per_instance = 0;   //!< rows each instance holds once, whatever its sites (TPC-C's Item)
  //! Bytes of index entries and other lookup structures per row (estimated, rounded up).
  std::uint64_t index_bytes_per_row = 0;
  //! Whether a site allocates its rows in Table::kChunkRows chunks (else it reserves them exactly).
  bool chunked = false;

  //! Bytes one row takes (header and columns, aligned: storage/row.hpp).
  std::size_t row_bytes() const { return Row::stride(columns); }
};

//! A table of a loaded instance: its rows at this instance's sites, and their stride.
struct TableRows {
  std::string name;            //!< the table's name (as load_size() names it)
  std::uint64_t rows = 0;      //!< rows in use at this instance
  std::size_t row_bytes = 0;   //!< bytes per row (Table::row_stride)
};

//! The rows `table` holds now over all its sites, as table `name`.
inline TableRows table_rows_of(std::string name, const Table& table) {
  TableRows out;
  out.name = std::move(name);
  for (std::size_t s = 0; s < table.sites(); ++s) out.rows += table.rows(s);
  out.row_bytes = table.row_stride();
  return out;
}

//! A fixed-count table of `rows` rows a site, `columns` columns a row, `index_bytes` of index a row.
inline TableLoad fixed_table(std::string name, std::size_t columns, std::uint64_t rows, std::uint64_t index_bytes,
                             bool chunked = false) {
  TableLoad t;
  t.name = std::move(name);
  t.columns = columns;
  t.rows_per_site = static_cast<double>(rows);
  t.min_rows_per_site = rows;
  t.max_rows_per_site = rows;
  t.index_bytes_per_row = index_bytes;
  t.chunked = chunked;
  return t;
}

//! A table whose rows a load draws: `mean` a site, in [min, max].
inline TableLoad drawn_table(std::string name, std::size_t columns, double mean, std::uint64_t min, std::uint64_t max,
                             std::uint64_t index_bytes, bool chunked = true) {
  TableLoad t = fixed_table(std::move(name), columns, 0, index_bytes, chunked);
  t.rows_per_site = mean;
  t.min_rows_per_site = min;
  t.max_rows_per_site = max;
  return t;
}

//! The bytes a load of `sites` sites in `instances` instances is estimated to allocate: each
//! table's rows (a chunked table's rounded up to whole chunks a site) times their stride, plus
//! their index bytes. Mean row counts, so that the estimate is what a load of that size takes.
inline std::uint64_t load_bytes(const std::vector<TableLoad>& tables, std::uint64_t sites, std::uint64_t instances) {
  double bytes = 0;
  for (const TableLoad& t : tables) {
    const double per_site = t.rows_per_site;
    const double held =
        t.chunked ? std::ceil(per_site / static_cast<double>(Table::kChunkRows)) * static_cast<double>(Table::kChunkRows)
                  : per_site;
    const double stride = static_cast<double>(t.row_bytes()), index = static_cast<double>(t.index_bytes_per_row);
    bytes += static_cast<double>(sites) * (held * stride + per_site * index);
    bytes += static_cast<double>(instances) * static_cast<double>(t.rows_per_instance) * (stride + index);
  }
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(std::ceil(bytes));
}

}  // namespace islands
