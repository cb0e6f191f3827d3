#pragma once
// TPC-C's five procedures (clause 2.4-2.8), as the operations execute_part dispatches. Each
// operation has a phase-1 function that finds and locks its rows and checks its conditions
// (pushing the rows it will change onto Part::rows) and, where it writes, a phase-2 function
// that takes the same rows back in the same order and changes them; execute_part runs phase
// 1 for every operation of a part before phase 2 for any.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "islands/workload/tpcc_workload.hpp"

namespace islands {

// NewOrder, home warehouse: [kNewOrderHome, w, d, c, n, all_local, n x (item, supply_w, qty)].
// An unused item rolls the transaction back before anything is locked.
template <class Index>
template <class CC>
typename TpccWorkload<Index>::Step TpccWorkload<Index>::new_order_home_lock(const std::uint64_t* op, Part<CC>& part) {
  const std::uint64_t w = op[1], d = op[2], c = op[3], lines = op[4];
  Row* wh = part.find(Warehouse::key(w));
  Row* dist = part.find(District::key(w, d));
  Row* cust = part.find(Customer::key(w, d, c));
  ISLANDS_CHECK(wh && dist && cust, "TPC-C NewOrder rows missing");
  for (std::uint64_t k = 0; k < lines; ++k) {
    if (!part.find(Item::key(op[6 + 3 * k]))) return Step::rollback;  // unused item
  }
  if (!(wh = part.open(wh, LockMode::shared)) || !(dist = part.open(dist, LockMode::exclusive)) ||
      !(cust = part.open(cust, LockMode::shared))) {
    return Step::abort;
  }
  // table_2pl: the tables phase 2 inserts into, now (it can neither wait nor abort there).
  if (!part.lock_table(tpcc::kOrderTag) || !part.lock_table(tpcc::kNewOrderTag) ||
      !part.lock_table(tpcc::kOrderLineTag)) {
    return Step::abort;
  }
  // What phase 2 needs of the rows it only reads, kept now: read committed releases their
  // locks when this statement ends (the caller's end_statement).
  part.w_tax = Warehouse::tax(wh);
  part.c_discount = Customer::discount(cust);
  part.c_text = spec_ ? static_cast<std::uint8_t>(Customer::text(cust).last[0]) +
                            static_cast<std::uint8_t>(Customer::text(cust).credit[0])
                      : 0;
  part.rows.push_back(dist);
  // The index slots phase 2's inserts probe (the order, its new-order row and its lines, under
  // the number the district holds now): a hint, see prefetch_part.
  if (std::is_same_v<Index, HashIndex> && engine_.prefetch) {
    const auto o = static_cast<std::uint64_t>(District::next_o_id(dist));
    index_.prefetch(Order::key(w, d, o));
    index_.prefetch(NewOrder::key(w, d, o));
    for (std::uint64_t k = 0; k < lines; ++k) index_.prefetch(OrderLine::key(w, d, o, k + 1));
  }
  return Step::next;
}

// NewOrder, one stock row: [kStock, w, item, qty, remote, d].
template <class Index>
template <class CC>
typename TpccWorkload<Index>::Step TpccWorkload<Index>::new_order_stock_lock(const std::uint64_t* op, Part<CC>& part) {
  Row* s = part.find(Stock::key(op[1], op[2]));
  ISLANDS_CHECK(s != nullptr, "TPC-C stock row missing");
  if (!(s = part.open(s, LockMode::exclusive))) return Step::abort;
  part.rows.push_back(s);
  return Step::next;
}

// Takes the district's next order number and inserts the order (O_ENTRY_D now), its new-order
// row and its lines; the total is sum(OL_AMOUNT) * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX)
// (clause 2.4.2.2). In the spec layout the lines' stock text is the lines step's
// (new_order_lines_apply), which follows: this step leaves it the order's number, the lines'
// rows and which items' I_DATA hold "ORIGINAL" (in the part, and as a record where the lines
// step runs in a later PLP stage, tpcc_rendezvous.hpp). False when a reader holds a row an
// aborted insert left (the caller undoes, retries).
template <class Index>
template <class CC>
bool TpccWorkload<Index>::new_order_home_apply(const std::uint64_t* op, Part<CC>& part) {
  const std::uint64_t w = op[1], d = op[2], c = op[3], lines = op[4], all_local = op[5];
  const std::size_t site = w / config_.warehouses_per_site - first_site_;
  Row* dist = part.take();
  save_numeric<District>(part, dist);
  const std::uint64_t o = static_cast<std::uint64_t>(District::next_o_id(dist));
  District::set_next_o_id(dist, District::next_o_id(dist) + 1);
  Row* order = insert(part.ctx, part.cc, part.reason, orders_, site, Order::key(w, d, o));
  Row* no = order ? insert(part.ctx, part.cc, part.reason, new_orders_, site, NewOrder::key(w, d, o)) : nullptr;
  if (!no) return false;
  Order::set_c_id(order, static_cast<std::int32_t>(c));
  Order::set_entry_d(order, part.ctx.wall_seconds());
  Order::set_ol_cnt(order, static_cast<std::int32_t>(lines));
  Order::set_all_local(order, static_cast<std::int32_t>(all_local));
  by_customer_.insert(OrderByCustomer::key(w, d, c, o), reinterpret_cast<std::uint64_t>(order));
  NewOrder::set_o_id(no, static_cast<std::int32_t>(o));
  NewOrder::set_present(no, 1);
  std::int64_t sum = 0;
  std::uint64_t item_original = 0;
  for (std::uint64_t k = 0; k < lines; ++k) {
    const std::uint64_t* line = &op[6 + 3 * k];  // item, supply_w, qty
    Row* ol = insert(part.ctx, part.cc, part.reason, order_lines_, site, OrderLine::key(w, d, o, k + 1));
    if (!ol) return false;
    prefetch_lines<1>(ol, order_lines_.row_stride());  // fresh memory: its every line is written
    const Row* item = part.find(Item::key(line[0]));
    const std::int64_t amount = static_cast<std::int64_t>(line[2]) * Item::price(item);
    OrderLine::set_i_id(ol, static_cast<std::int32_t>(line[0]));
    OrderLine::set_supply_w(ol, static_cast<std::int32_t>(line[1]));
    OrderLine::set_quantity(ol, static_cast<std::int32_t>(line[2]));
    OrderLine::set_amount(ol, static_cast<std::int32_t>(amount));
    if (spec_) {
      if (tpcc::has_original(Item::text(item).data, sizeof Item::Text::data)) item_original |= std::uint64_t{1} << k;
      part.checksum += static_cast<std::uint8_t>(Item::text(item).name[0]);
      part.lines[k] = ol;
    } else {
      part.ctx.wrote(ol, width<OrderLine>());  // the spec layout's: after the lines step's text
    }
    sum += amount;
  }
  part.order = o;
  part.item_original = item_original;
  if (spec_ && part.io && part.io->out) {  // PLP stages: for the lines step, run after the stock steps
    tpcc::StockLineRecord::append_order(*part.io->out, o, item_original);
    ++part.io->produced;
  }
  // Redo: the district's numeric columns (next_o_id), the inserted order and new-order rows
  // (their lines are above, or the lines step's).
  part.ctx.wrote(dist, District::kColumns);
  part.ctx.wrote(order, width<Order>());
  part.ctx.wrote(no, width<NewOrder>());
  // In cents, rates in basis points: sum * (1 - discount) * (1 + w_tax + d_tax).
  const auto total = static_cast<std::int64_t>(
      static_cast<__int128>(sum) * (10000 - part.c_discount) * (10000 + part.w_tax + District::tax(dist)) /
      100000000);
  part.checksum += static_cast<std::uint64_t>(total) + part.c_text;
  return true;
}

// NewOrder's lines, spec layout: [kNewOrderLines, w, d, n, n x (item, supply_w)]. Each line's
// OL_DIST_INFO is the supplying stock's S_DIST_xx of this district; a line is brand ("B") when
// its item's I_DATA and its stock's S_DATA both hold "ORIGINAL", generic ("G") otherwise
// (clause 2.4.2.2). The stock's strings are read from its row where this instance holds it and
// recomputed from its key where another does (they never change). The order is the home
// step's, in this part; under PLP, where the stock steps ran in an earlier stage on other
// partitions, the order's number and every line's stock data come from the records the home and
// stock steps produced (part.io->in, tpcc_rendezvous.hpp) and the lines' rows are found by key
// (inserted and locked by the home step, in this partition's context).
template <class Index>
template <class CC>
void TpccWorkload<Index>::new_order_lines_apply(const std::uint64_t* op, Part<CC>& part) {
  const std::uint64_t w = op[1], d = op[2], lines = op[3];
  const bool staged = part.io && part.io->in && part.order == 0;
  std::uint64_t o = part.order, item_original = part.item_original;
  if (staged) {
    const std::uint64_t* home = tpcc::StockLineRecord::find_order(part.io->in, part.io->in_words);
    ISLANDS_CHECK(home != nullptr, "TPC-C NewOrder: its lines step got no record of its order");
    ++part.io->consumed;
    o = tpcc::StockLineRecord::order(home);
    item_original = tpcc::StockLineRecord::item_original(home);
  }
  std::uint64_t brand = 0;
  for (std::uint64_t k = 0; k < lines; ++k) {
    const std::uint64_t* line = &op[4 + 2 * k];  // item, supply_w
    Row* ol = staged ? find(OrderLine::key(w, d, o, k + 1)) : part.lines[k];
    ISLANDS_CHECK(ol != nullptr, "TPC-C NewOrder: an order line its home step inserted is missing");
    // PLP stages: the stock step's record of this line (its owner read the row).
    const std::uint64_t* given = part.io && part.io->in ? stock_line_given(line, d, *part.io) : nullptr;
    const Stock::Text* text = nullptr;
    if (!given) {
      const Row* stock = part.find_owned(Stock::key(line[1], line[0]), w);  // in this action's root, or not
      text = stock ? &Stock::text(stock) : nullptr;
      static thread_local Stock::Text remote;
      if (!text) {
        tpcc::stock_text(line[1], line[0], remote);
        text = &remote;
      }
    }
    std::memcpy(OrderLine::text(ol).dist_info, given ? tpcc::StockLineRecord::dist_info(given) : text->dist[d - 1],
                sizeof OrderLine::Text::dist_info);
    const bool b = (item_original >> k & 1) != 0 &&
                   (given ? tpcc::StockLineRecord::original(given)
                          : tpcc::has_original(text->data, sizeof Stock::Text::data));
    brand += b ? 'B' : 'G';
    part.ctx.wrote(ol, width<OrderLine>());
  }
  part.checksum += brand;
}

// The record the stock step produced for order line `line` (item, supply_w) of district d,
// from the input `io`; nullptr when it holds none (the lines step reads the row itself).
// Counts it consumed. Test mode (engine.record_history): checked against the text recomputed
// from the stock's key, which the direct read would have found (it never changes).
template <class Index>
const std::uint64_t* TpccWorkload<Index>::stock_line_given(const std::uint64_t* line, std::uint64_t d,
                                                           ActionIo& io) const {
  const std::uint64_t* given = tpcc::StockLineRecord::find(io.in, io.in_words, line[1], line[0]);
  if (!given) return nullptr;
  ++io.consumed;
  if (engine_.record_history) {
    Stock::Text text;
    tpcc::stock_text(line[1], line[0], text);
    ISLANDS_CHECK(std::memcmp(tpcc::StockLineRecord::dist_info(given), text.dist[d - 1],
                              tpcc::StockLineRecord::kDistBytes) == 0 &&
                      tpcc::StockLineRecord::original(given) == tpcc::has_original(text.data, sizeof text.data),
                  "TPC-C NewOrder: a stock step's record differs from its stock row's text");
  }
  return given;
}

// Takes the quantity from stock, refilling by 91 below 10 left (clause 2.4.2.2). Under PLP
// stages (part.io->out) hands the lines step the line's S_DIST_xx of the order's district and
// its S_DATA test (tpcc_rendezvous.hpp).
template <class Index>
template <class CC>
void TpccWorkload<Index>::new_order_stock_apply(const std::uint64_t* op, Part<CC>& part) {
  Row* s = part.take();
  if (spec_ && part.io && part.io->out) {
    const Stock::Text& text = Stock::text(s);
    tpcc::StockLineRecord::append(*part.io->out, op[1], op[2], text.dist[op[5] - 1],
                                  tpcc::has_original(text.data, sizeof text.data));
    ++part.io->produced;
  }
  save_numeric<Stock>(part, s);
  const auto qty = static_cast<std::int32_t>(op[3]);
  const std::int32_t quantity = Stock::quantity(s);
  Stock::set_quantity(s, quantity >= qty + 10 ? quantity - qty : quantity - qty + 91);
  Stock::set_ytd(s, Stock::ytd(s) + qty);
  Stock::set_order_cnt(s, Stock::order_cnt(s) + 1);
  Stock::set_remote_cnt(s, Stock::remote_cnt(s) + static_cast<std::int32_t>(op[4]));
  part.ctx.wrote(s, Stock::kColumns);  // S_DIST_xx and S_DATA never change
}

// Payment, home warehouse: [kPaymentHome, w, d, amount].
template <class Index>
template <class CC>
typename TpccWorkload<Index>::Step TpccWorkload<Index>::payment_home_lock(const std::uint64_t* op, Part<CC>& part) {
  Row* wh = part.find(Warehouse::key(op[1]));
  Row* dist = part.find(District::key(op[1], op[2]));
  ISLANDS_CHECK(wh && dist, "TPC-C Payment rows missing");
  if (!(wh = part.open(wh, LockMode::exclusive)) || !(dist = part.open(dist, LockMode::exclusive))) return Step::abort;
  part.rows.insert(part.rows.end(), {wh, dist});
  return Step::next;
}

// Payment, the customer's warehouse: [kPaymentCustomer, c_w, c_d, by_name, c_id or last, amount, w, d].
template <class Index>
template <class CC>
typename TpccWorkload<Index>::Step TpccWorkload<Index>::payment_customer_lock(const std::uint64_t* op,
                                                                              Part<CC>& part) {
  Row* cust = op[3] ? by_last_name(op[1], op[2], op[4]) : part.find(Customer::key(op[1], op[2], op[4]));
  ISLANDS_CHECK(cust != nullptr, "TPC-C Payment customer missing");
  if (!(cust = part.open(cust, LockMode::exclusive))) return Step::abort;
  part.rows.push_back(cust);
  return Step::next;
}

// Adds the amount to the warehouse's and the district's YTD (reading their names and
// addresses in the spec layout, which the terminal shows).
template <class Index>
template <class CC>
void TpccWorkload<Index>::payment_home_apply(const std::uint64_t* op, Part<CC>& part) {
  Row* wh = part.take();
  Row* dist = part.take();
  const auto amount = static_cast<std::int64_t>(op[3]);
  save_numeric<Warehouse>(part, wh);
  save_numeric<District>(part, dist);
  Warehouse::set_ytd(wh, Warehouse::ytd(wh) + amount);
  District::set_ytd(dist, District::ytd(dist) + amount);
  part.ctx.wrote(wh, Warehouse::kColumns);
  part.ctx.wrote(dist, District::kColumns);
  if (spec_) {
    part.checksum += static_cast<std::uint8_t>(Warehouse::text(wh).address.city[0]) +
                     static_cast<std::uint8_t>(District::text(dist).address.zip[0]);
  }
}

// Moves the amount from the customer's balance to its YTD payment; in the spec layout a bad-
// credit customer's C_DATA gets "C_ID C_D_ID C_W_ID D_ID W_ID H_AMOUNT" in front (clause
// 2.5.2.2, kept to 500 characters). Records the payment in History here, where the customer
// (chosen by id or by name) is known: H_DATA is W_NAME, 4 spaces, D_NAME of the paid district,
// read from its rows when this instance holds them and recomputed from their keys otherwise.
template <class Index>
template <class CC>
void TpccWorkload<Index>::payment_customer_apply(const std::uint64_t* op, Part<CC>& part) {
  const std::uint64_t c_w = op[1], c_d = op[2], w = op[6], d = op[7];
  Row* cust = part.take();
  const auto amount = static_cast<std::int64_t>(op[5]);
  const bool rewrite_data = spec_ && Customer::bad_credit(cust) != 0;
  if (rewrite_data) {
    save(part, cust, customers_);
  } else {
    save_numeric<Customer>(part, cust);
  }
  Customer::set_balance(cust, Customer::balance(cust) - amount);
  Customer::set_ytd_payment(cust, Customer::ytd_payment(cust) + amount);
  Customer::set_payment_cnt(cust, Customer::payment_cnt(cust) + 1);
  const std::int32_t c_id = Customer::id(cust);
  if (rewrite_data) {
    char* data = Customer::text(cust).data;
    constexpr std::size_t kData = sizeof Customer::Text::data;
    char head[96];
    const int n = std::snprintf(head, sizeof head, "%d %llu %llu %llu %llu %lld.%02lld ", c_id,
                                static_cast<unsigned long long>(c_d), static_cast<unsigned long long>(c_w),
                                static_cast<unsigned long long>(d), static_cast<unsigned long long>(w),
                                static_cast<long long>(amount / 100), static_cast<long long>(amount % 100));
    const std::size_t len = std::min(static_cast<std::size_t>(n), kData);
    std::memmove(data + len, data, kData - len);  // the old data, cut to fit
    std::memcpy(data, head, len);
  }
  Row* h = history_.allocate(site_of(c_w), History::key(c_w, c_d, static_cast<std::uint64_t>(c_id)));
  History::set_c_id(h, c_id);
  History::set_c_d(h, static_cast<std::int32_t>(c_d));
  History::set_c_w(h, static_cast<std::int32_t>(c_w));
  History::set_d(h, static_cast<std::int32_t>(d));
  History::set_w(h, static_cast<std::int32_t>(w));
  History::set_amount(h, amount);
  if (spec_) {
    History::Text& t = History::text(h);
    t.date = part.ctx.wall_seconds();
    const Row* wh = part.find_owned(Warehouse::key(w), c_w);  // in this action's root, or not
    const Row* dist = part.find_owned(District::key(w, d), c_w);
    static thread_local Warehouse::Text w_text;
    static thread_local District::Text d_text;
    if (!wh) tpcc::warehouse_text(w, w_text);
    if (!dist) tpcc::district_text(w, d, d_text);
    tpcc::history_data(wh ? Warehouse::text(wh).name : w_text.name, dist ? District::text(dist).name : d_text.name,
                       t.data);
    part.checksum += static_cast<std::uint8_t>(Customer::text(cust).first[0]);
  }
  part.ctx.inserted(h);
  // The customer's numeric columns, or the whole row where C_DATA changed; the new History row.
  part.ctx.wrote(cust, rewrite_data ? width<Customer>() : Customer::kColumns);
  part.ctx.wrote(h, width<History>());
}

// OrderStatus: [kOrderStatus, w, d, by_name, c_id or last]. The customer (balance, and its
// names in the spec layout), its latest order (ordered secondary index, newest valid entry:
// entry date, carrier) and that order's lines (item, supply warehouse, quantity, amount,
// delivery date); read only (clause 2.6.2.2).
template <class Index>
template <class CC>
typename TpccWorkload<Index>::Step TpccWorkload<Index>::order_status_read(const std::uint64_t* op, Part<CC>& part) {
  const std::uint64_t w = op[1], d = op[2];
  Row* cust = op[3] ? by_last_name(w, d, op[4]) : find(Customer::key(w, d, op[4]));
  ISLANDS_CHECK(cust != nullptr, "TPC-C OrderStatus customer missing");
  if (!(cust = part.open(cust, LockMode::shared))) return Step::abort;
  const auto c = static_cast<std::uint64_t>(Customer::id(cust));
  static thread_local std::vector<Row*> candidates_;  // per worker: several share this workload
  candidates_.clear();
  by_customer_.scan(OrderByCustomer::key(w, d, c, 0), OrderByCustomer::key(w, d, c, OrderByCustomer::kMaxOrder),
                    [&](std::uint64_t, std::uint64_t value) {
                      candidates_.push_back(reinterpret_cast<Row*>(value));
                      return true;
                    });
  for (std::size_t i = candidates_.size(); i-- > 0;) {
    const Row* order = part.open(candidates_[i], LockMode::shared, tpcc::kOrderTag);
    if (!order) return Step::abort;
    // An entry an aborted insert left may now name another customer's order.
    if (order->deleted() || static_cast<std::uint64_t>(Order::c_id(order)) != c) continue;
    const std::uint64_t o = tpcc::key_id(order->key);
    for (std::int32_t ol = 1; ol <= Order::ol_cnt(order); ++ol) {
      Row* line = find(OrderLine::key(w, d, o, static_cast<std::uint64_t>(ol)));
      ISLANDS_CHECK(line != nullptr, "TPC-C order line missing");
      if (!(line = part.open(line, LockMode::shared, tpcc::kOrderLineTag))) return Step::abort;
      part.checksum += static_cast<std::uint32_t>(OrderLine::i_id(line) + OrderLine::supply_w(line) +
                                                  OrderLine::quantity(line) + OrderLine::amount(line) +
                                                  OrderLine::delivered(line));
    }
    part.checksum += o + static_cast<std::uint64_t>(Customer::balance(cust)) +
                     static_cast<std::uint32_t>(Order::entry_d(order) + Order::carrier_id(order));
    if (spec_) {  // the customer's names, as the terminal shows them
      const Customer::Text& t = Customer::text(cust);
      part.checksum += static_cast<std::uint8_t>(t.first[0]) + static_cast<std::uint8_t>(t.middle[0]) +
                       static_cast<std::uint8_t>(t.last[0]);
    }
    break;
  }
  return Step::next;
}

// Delivery: [kDelivery, w, carrier]. Per district: the oldest undelivered order (the
// district's cursor), its new-order row, order, lines and customer.
template <class Index>
template <class CC>
typename TpccWorkload<Index>::Step TpccWorkload<Index>::delivery_lock(const std::uint64_t* op, Part<CC>& part) {
  const std::uint64_t w = op[1];
  for (std::uint64_t d = 1; d <= kDistricts; ++d) {
    Row* dist = part.open(find(District::key(w, d)), LockMode::exclusive);
    if (!dist) return Step::abort;
    part.rows.push_back(dist);
    const auto o = static_cast<std::uint64_t>(District::next_delivery(dist));
    Row* no = o < static_cast<std::uint64_t>(District::next_o_id(dist)) ? find(NewOrder::key(w, d, o)) : nullptr;
    if (no && !(no = part.open(no, LockMode::exclusive, tpcc::kNewOrderTag))) return Step::abort;
    if (no && (no->deleted() || NewOrder::present(no) != 1)) no = nullptr;
    part.rows.push_back(no);
    if (!no) continue;
    Row* order = find(Order::key(w, d, o));
    ISLANDS_CHECK(order != nullptr, "TPC-C order of a new order missing");
    if (!(order = part.open(order, LockMode::exclusive))) return Step::abort;
    Row* cust = find(Customer::key(w, d, static_cast<std::uint64_t>(Order::c_id(order))));
    ISLANDS_CHECK(cust != nullptr, "TPC-C customer of an order missing");
    if (!(cust = part.open(cust, LockMode::exclusive))) return Step::abort;
    part.rows.insert(part.rows.end(), {order, cust});
    for (std::int32_t ol = 1; ol <= Order::ol_cnt(order); ++ol) {
      Row* line = find(OrderLine::key(w, d, o, static_cast<std::uint64_t>(ol)));
      ISLANDS_CHECK(line != nullptr, "TPC-C order line missing");
      if (!(line = part.open(line, LockMode::exclusive, tpcc::kOrderLineTag))) return Step::abort;
      part.rows.push_back(line);
    }
  }
  return Step::next;
}

// Advances each district's cursor, deletes the new order (at commit: from the index and the
// table), sets the carrier, delivers the lines (OL_DELIVERY_D now) and credits their total to
// the customer, counting the delivery (clause 2.7.4.2).
template <class Index>
template <class CC>
void TpccWorkload<Index>::delivery_apply(const std::uint64_t* op, Part<CC>& part) {
  for (std::uint64_t d = 1; d <= kDistricts; ++d) {
    Row* dist = part.take();
    Row* no = part.take();
    if (!no) continue;
    Row* order = part.take();
    Row* cust = part.take();
    save_numeric<District>(part, dist);
    save_numeric<Order>(part, order);
    save_numeric<Customer>(part, cust);
    District::set_next_delivery(dist, District::next_delivery(dist) + 1);
    part.ctx.deleting(CC::origin(no), &erase_key, &recycle_new_order, this);
    Order::set_carrier_id(order, static_cast<std::int32_t>(op[2]));
    std::int64_t total = 0;
    const std::int32_t delivered_at = part.ctx.wall_seconds();
    for (std::int32_t ol = 1; ol <= Order::ol_cnt(order); ++ol) {
      Row* line = part.take();
      save_numeric<OrderLine>(part, line);
      OrderLine::set_delivered(line, delivered_at);
      total += OrderLine::amount(line);
      part.ctx.wrote(line, OrderLine::kColumns);
    }
    Customer::set_balance(cust, Customer::balance(cust) + total);
    Customer::set_delivery_cnt(cust, Customer::delivery_cnt(cust) + 1);
    // Redo: the numeric columns that changed (the delete of the new order is logged by deleting()).
    part.ctx.wrote(dist, District::kColumns);
    part.ctx.wrote(order, Order::kColumns);
    part.ctx.wrote(cust, Customer::kColumns);
  }
}

// StockLevel: [kStockLevel, w, d, threshold]. Items of the district's last 20 orders with
// stock below the threshold; read only.
template <class Index>
template <class CC>
typename TpccWorkload<Index>::Step TpccWorkload<Index>::stock_level_read(const std::uint64_t* op, Part<CC>& part) {
  const std::uint64_t w = op[1], d = op[2], threshold = op[3];
  const Row* dist = part.open(find(District::key(w, d)), LockMode::shared);
  if (!dist) return Step::abort;
  const auto next = static_cast<std::uint64_t>(District::next_o_id(dist));
  part.end_statement();  // read committed: the district's statement is done
  static thread_local std::vector<std::uint64_t> items_seen_;  // per worker
  items_seen_.clear();
  for (std::uint64_t o = next > 20 ? next - 20 : 1; o < next; ++o) {
    Row* order = find(Order::key(w, d, o));
    if (!order) continue;
    if (!(order = part.open(order, LockMode::shared, tpcc::kOrderTag))) return Step::abort;
    if (order->deleted()) continue;
    for (std::int32_t ol = 1; ol <= Order::ol_cnt(order); ++ol) {
      Row* line = find(OrderLine::key(w, d, o, static_cast<std::uint64_t>(ol)));
      ISLANDS_CHECK(line != nullptr, "TPC-C order line missing");
      if (!(line = part.open(line, LockMode::shared, tpcc::kOrderLineTag))) return Step::abort;
      items_seen_.push_back(static_cast<std::uint64_t>(OrderLine::i_id(line)));
    }
  }
  std::sort(items_seen_.begin(), items_seen_.end());
  items_seen_.erase(std::unique(items_seen_.begin(), items_seen_.end()), items_seen_.end());
  std::uint64_t low = 0;
  for (std::uint64_t item : items_seen_) {
    Row* s = find(Stock::key(w, item));
    ISLANDS_CHECK(s != nullptr, "TPC-C stock row missing");
    if (!(s = part.open(s, LockMode::shared))) return Step::abort;
    if (static_cast<std::uint64_t>(Stock::quantity(s)) < threshold) ++low;
  }
  part.checksum += low;
  return Step::next;
}

}  // namespace islands
