#pragma once
// TPC-C's initial database (clause 4.3.3.1) at the cardinalities TpccConfig sets, one site at
// a time. The random draws follow the rows in a fixed order, so a site's data depend only on
// its global number; the columns that never change and that another instance may need
// (names, addresses, S_DIST_xx, S_DATA) depend only on their row's key (tpcc_text.hpp). The
// spec layout's other strings come from a generator of their own, so that both layouts load
// the same numbers.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "islands/workload/tpcc_workload.hpp"

namespace islands {

template <class Index>
void TpccWorkload<Index>::load_site(std::size_t site) {
  Random rng(0x7cc0ULL + first_site_ + site);
  Random text(0x7e47ULL + first_site_ + site);
  const std::int32_t loaded_at = now();
  if (site == 0) {
    items_.reserve(0, config_.items);
    for (std::uint64_t i = 1; i <= config_.items; ++i) {
      Row* item = add(items_, 0, Item::key(i));
      Item::set_price(item, static_cast<std::int32_t>(100 + rng.below(9901)));  // $1.00 - $100.00
      Item::set_im_id(item, static_cast<std::int32_t>(1 + rng.below(10000)));
      if (spec_) {
        // Every instance's copy alike: keyed by the item.
        Random text_rng = tpcc::keyed(Item::key(i), 4);
        tpcc::a_string(text_rng, Item::text(item).name, sizeof Item::Text::name, 14, 24);
        tpcc::data_50(text_rng, Item::text(item).data);
      }
    }
  }
  const std::uint64_t cpd = config_.customers_per_district;
  for (std::uint64_t local = 0; local < config_.warehouses_per_site; ++local) {
    const std::uint64_t w = (first_site_ + site) * config_.warehouses_per_site + local;
    Row* wh = add(warehouses_, site, Warehouse::key(w));
    Warehouse::set_ytd(wh, 30000000 * static_cast<std::int64_t>(cpd) / 3000);  // $300,000.00 at 3000 customers
    Warehouse::set_tax(wh, static_cast<std::int32_t>(rng.below(2001)));        // 0-20.00%, in basis points
    if (spec_) tpcc::warehouse_text(w, Warehouse::text(wh));
    stock_.reserve(site, config_.items);
    for (std::uint64_t i = 1; i <= config_.items; ++i) {
      Row* s = add(stock_, site, Stock::key(w, i));
      Stock::set_quantity(s, static_cast<std::int32_t>(10 + rng.below(91)));
      if (spec_) tpcc::stock_text(w, i, Stock::text(s));
    }
    for (std::uint64_t d = 1; d <= kDistricts; ++d) {
      Row* dist = add(districts_, site, District::key(w, d));
      District::set_ytd(dist, 3000000 * static_cast<std::int64_t>(cpd) / 3000);  // $30,000.00
      District::set_tax(dist, static_cast<std::int32_t>(rng.below(2001)));
      District::set_next_o_id(dist, static_cast<std::int32_t>(cpd + 1));
      District::set_next_delivery(dist, static_cast<std::int32_t>(cpd - (cpd * 3) / 10 + 1));  // oldest new order
      if (spec_) tpcc::district_text(w, d, District::text(dist));
      load_customers(site, w, d, rng, text, loaded_at);
      load_orders(site, w, d, rng, text, loaded_at);
    }
  }
}

// The district's customers, one History row each, and their last-name lists sorted by first name.
template <class Index>
void TpccWorkload<Index>::load_customers(std::size_t site, std::uint64_t w, std::uint64_t d, Random& rng,
                                         Random& text, std::int32_t loaded_at) {
  const std::uint64_t cpd = config_.customers_per_district;
  for (std::uint64_t c = 1; c <= cpd; ++c) {
    Row* cust = add(customers_, site, Customer::key(w, d, c));
    Customer::set_balance(cust, -1000);     // -$10.00
    Customer::set_ytd_payment(cust, 1000);  // $10.00
    Customer::set_payment_cnt(cust, 1);
    Customer::set_discount(cust, static_cast<std::int32_t>(rng.below(5001)));  // 0-50%
    Customer::set_bad_credit(cust, rng.below(10) == 0 ? 1 : 0);               // 10% bad credit
    // C_LAST: 0-999 in turn for the first 1000, then NURand(255, 0, 999) (clause 4.3.3.1).
    const std::uint64_t last = c <= kLastNames ? c - 1 : nurand(rng, 255, 0, kLastNames - 1, kCLastLoad);
    Customer::set_last(cust, static_cast<std::int32_t>(last));
    Customer::set_first(cust, static_cast<std::int32_t>(rng.below(1u << 30)));
    Customer::set_id(cust, static_cast<std::int32_t>(c));
    if (spec_) {
      Customer::Text& t = Customer::text(cust);
      t.since = loaded_at;
      t.credit_lim = 5000000;  // $50,000.00
      tpcc::a_string(text, t.first, sizeof t.first, 8, 16);
      std::memcpy(t.middle, "OE", 2);
      tpcc::last_name(last, t.last);
      tpcc::address(text, t.address);
      tpcc::n_string(text, t.phone, sizeof t.phone, 16, 16);
      std::memcpy(t.credit, Customer::bad_credit(cust) ? "BC" : "GC", 2);
      tpcc::a_string(text, t.data, sizeof t.data, 300, 500);
    }
    by_last_[last_slot(w, d, last)].push_back(cust);
    Row* h = history_.allocate(site, History::key(w, d, c));
    History::set_c_id(h, static_cast<std::int32_t>(c));
    History::set_c_d(h, static_cast<std::int32_t>(d));
    History::set_d(h, static_cast<std::int32_t>(d));
    History::set_c_w(h, static_cast<std::int32_t>(w));
    History::set_w(h, static_cast<std::int32_t>(w));
    History::set_amount(h, 1000);
    if (spec_) {
      History::text(h).date = loaded_at;
      tpcc::a_string(text, History::text(h).data, sizeof History::Text::data, 12, 24);
    }
  }
  // Sorted by C_FIRST (clause 2.5.2.2): the string in the spec layout, its number in the narrow one.
  for (std::uint64_t last = 0; last < kLastNames; ++last) {
    auto& list = by_last_[last_slot(w, d, last)];
    if (spec_) {
      std::sort(list.begin(), list.end(), [](const Row* a, const Row* b) {
        return std::strncmp(Customer::text(a).first, Customer::text(b).first, sizeof Customer::Text::first) < 0;
      });
    } else {
      std::sort(list.begin(), list.end(),
                [](const Row* a, const Row* b) { return Customer::first(a) < Customer::first(b); });
    }
  }
}

// The district's initial orders: one per customer in a random order, 5-15 lines each; the
// last 30% are undelivered and have a new-order row.
template <class Index>
void TpccWorkload<Index>::load_orders(std::size_t site, std::uint64_t w, std::uint64_t d, Random& rng,
                                      Random& text, std::int32_t loaded_at) {
  const std::uint64_t cpd = config_.customers_per_district;
  std::vector<std::uint64_t> perm(cpd);
  for (std::uint64_t i = 0; i < cpd; ++i) perm[i] = i + 1;
  for (std::uint64_t i = cpd; i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
  const std::uint64_t first_new = cpd - (cpd * 3) / 10 + 1;
  for (std::uint64_t o = 1; o <= cpd; ++o) {
    Row* order = add(orders_, site, Order::key(w, d, o));
    const std::uint64_t lines = 5 + rng.below(11);
    Order::set_c_id(order, static_cast<std::int32_t>(perm[o - 1]));
    Order::set_entry_d(order, loaded_at);
    Order::set_carrier_id(order, o < first_new ? static_cast<std::int32_t>(1 + rng.below(10)) : 0);
    Order::set_ol_cnt(order, static_cast<std::int32_t>(lines));
    Order::set_all_local(order, 1);
    by_customer_.insert(OrderByCustomer::key(w, d, perm[o - 1], o), reinterpret_cast<std::uint64_t>(order));
    if (o >= first_new) {
      Row* no = add(new_orders_, site, NewOrder::key(w, d, o));
      NewOrder::set_o_id(no, static_cast<std::int32_t>(o));
      NewOrder::set_present(no, 1);
    }
    for (std::uint64_t ol = 1; ol <= lines; ++ol) {
      Row* line = add(order_lines_, site, OrderLine::key(w, d, o, ol));
      OrderLine::set_i_id(line, static_cast<std::int32_t>(1 + rng.below(config_.items)));
      OrderLine::set_supply_w(line, static_cast<std::int32_t>(w));
      OrderLine::set_quantity(line, 5);
      OrderLine::set_amount(line, o < first_new ? 0 : static_cast<std::int32_t>(1 + rng.below(999999)));
      OrderLine::set_delivered(line, o < first_new ? loaded_at : 0);
      if (spec_) tpcc::a_string(text, OrderLine::text(line).dist_info, sizeof OrderLine::Text::dist_info, 24, 24);
    }
  }
}

}  // namespace islands
