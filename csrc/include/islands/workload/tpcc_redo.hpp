#pragma once
// TPC-C's log: what recovery replays and what a checkpoint saves. Transactions log the
// numeric columns a step changed (a prefix of the row: the spec layout's strings follow them
// and change only in a bad-credit Payment's C_DATA, which logs the whole customer), whole
// inserted rows (Order, NewOrder, OrderLine, History) and Delivery's delete of a NewOrder row.
// Warehouse, District, Customer, Stock and Item rows are never inserted or deleted, so the
// load makes all of them and redo overwrites them in place, and the by-last-name lists the
// load builds stay right (names never change). The rows of the other four tables come and go:
// redo inserts them into their table, the primary index and (an Order) the by-customer
// ordered index, and a checkpoint's recovery first drops the ones the load made
// (clear_for_snapshot), so that a new order delivered before the checkpoint stays deleted and
// History rows are not loaded twice.
#include <cstdint>
#include <cstring>

#include "islands/workload/tpcc_workload.hpp"

namespace islands {

template <class Index>
template <class F>
void TpccWorkload<Index>::for_each_row(F&& f) const {
  const auto each = [&](const Table& table, std::size_t site) {
    table.for_each_row(site, [&](const Row& row) {
      if (!row.deleted()) f(row, table.columns());
    });
  };
  each(items_, 0);
  for (std::size_t s = 0; s < sites_; ++s) {
    for (const Table* table : {&warehouses_, &districts_, &customers_, &history_, &orders_, &new_orders_,
                               &order_lines_, &stock_}) {
      each(*table, s);
    }
  }
}

template <class Index>
bool TpccWorkload<Index>::redo(std::uint64_t key, const std::int32_t* image, std::size_t columns) {
  Table* table = nullptr;
  switch (key >> 56) {
    case tpcc::kWarehouseTag: table = &warehouses_; break;
    case tpcc::kDistrictTag: table = &districts_; break;
    case tpcc::kCustomerTag: table = &customers_; break;
    case tpcc::kItemTag: table = &items_; break;
    case tpcc::kStockTag: table = &stock_; break;
    case tpcc::kOrderTag: table = &orders_; break;
    case tpcc::kNewOrderTag: table = &new_orders_; break;
    case tpcc::kOrderLineTag: table = &order_lines_; break;
    case tpcc::kHistoryTag: table = &history_; break;
    default: return false;
  }
  // The tables whose rows transactions insert; the others' rows are all loaded.
  const bool inserted = table == &orders_ || table == &new_orders_ || table == &order_lines_ || table == &history_;
  if (columns == 0 || columns > table->columns()) return false;
  const bool history = table == &history_;
  Row* row = history ? nullptr : find(key);
  if (row && !row->deleted()) {
    if (table == &orders_) {  // the by-customer entry follows O_C_ID
      const std::int32_t was = Order::c_id(row);
      std::memcpy(row->columns(), image, 4 * columns);
      if (Order::c_id(row) != was) {
        const std::uint64_t w = tpcc::key_warehouse(key), d = (key >> 32) & 0xff, o = tpcc::key_id(key);
        by_customer_.erase(OrderByCustomer::key(w, d, static_cast<std::uint64_t>(was), o));
        by_customer_.insert(OrderByCustomer::key(w, d, static_cast<std::uint64_t>(Order::c_id(row)), o),
                            reinterpret_cast<std::uint64_t>(row));
      }
      return true;
    }
    std::memcpy(row->columns(), image, 4 * columns);
    return true;
  }
  // An insert: the whole row, into a site of this instance.
  const std::uint64_t global_site = tpcc::key_warehouse(key) / config_.warehouses_per_site;
  if (!inserted || columns != table->columns() || global_site < first_site_ || global_site >= first_site_ + sites_) {
    return false;
  }
  const std::size_t site = global_site - first_site_;
  if (row) {
    row->key = key;  // a row an aborted insert left under this key: reuse it
  } else {
    row = table->allocate(site, key);
    if (!history && !index_.insert(key, reinterpret_cast<std::uint64_t>(row))) return false;
  }
  std::memcpy(row->columns(), image, 4 * columns);
  if (table == &orders_) {
    const std::uint64_t w = tpcc::key_warehouse(key), d = (key >> 32) & 0xff, o = tpcc::key_id(key);
    by_customer_.erase(OrderByCustomer::key(w, d, static_cast<std::uint64_t>(Order::c_id(row)), o));
    by_customer_.insert(OrderByCustomer::key(w, d, static_cast<std::uint64_t>(Order::c_id(row)), o),
                        reinterpret_cast<std::uint64_t>(row));
  }
  return true;
}

template <class Index>
bool TpccWorkload<Index>::redo_delete(std::uint64_t key) {
  if (key >> 56 != tpcc::kNewOrderTag) return false;  // Delivery deletes new orders only
  Row* row = find(key);
  if (!row || row->deleted()) return false;
  index_.erase(key);
  new_orders_.release(site_of(tpcc::key_warehouse(key)), row);
  return true;
}

template <class Index>
void TpccWorkload<Index>::clear_for_snapshot() {
  for (std::size_t s = 0; s < sites_; ++s) {
    orders_.for_each_row(s, [&](Row& row) {
      if (row.deleted()) return;
      const std::uint64_t w = tpcc::key_warehouse(row.key), d = (row.key >> 32) & 0xff, o = tpcc::key_id(row.key);
      by_customer_.erase(OrderByCustomer::key(w, d, static_cast<std::uint64_t>(Order::c_id(&row)), o));
    });
    for (Table* table : {&orders_, &new_orders_, &order_lines_, &history_}) {
      const bool indexed = table != &history_;
      table->for_each_row(s, [&](Row& row) {
        if (row.deleted()) return;
        if (indexed) index_.erase(row.key);
        table->release(s, &row);
      });
    }
  }
}

}  // namespace islands
