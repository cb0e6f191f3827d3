#pragma once
// TPC-C's consistency conditions (clause 3.3.2.1-3.3.2.12) and the stock's counters against
// the order lines, read after a run; the test hook that breaks one row; the memory the tables
// hold.
//
// Each instance reports figures that add up over the deployment. Where an instance holds every
// row a condition relates (a district's orders, new orders and lines, a customer's orders and
// History rows, which Payment writes at the customer's site) the figure counts the warehouses,
// districts, orders, lines or customers that violate it. Where the rows may be on two instances
// (a warehouse's or district's YTD against the History rows of remote payments, a stock row
// against the order lines of other warehouses' NewOrders) the figure is a fingerprint: the sum
// over rows of (per-row weight x value) modulo a prime, the one side added and the other
// subtracted, so that the deployment's sum is 0 modulo the prime exactly when every row
// balances (a single wrong row is missed with probability 1 / prime).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "islands/workload/tpcc_workload.hpp"

namespace islands {
namespace tpcc {

//! The fingerprints' prime modulus (2^31 - 1): a figure lies in [0, kPrime), a deployment's
//! sum stays far inside int64.
constexpr std::int64_t kPrime = 2147483647;

//! A nonzero weight in [1, kPrime) for a row's identity.
inline std::int64_t row_weight(std::uint64_t id) {
  id += 0x9e3779b97f4a7c15ULL;
  id = (id ^ (id >> 30)) * 0xbf58476d1ce4e5b9ULL;
  id = (id ^ (id >> 27)) * 0x94d049bb133111ebULL;
  id ^= id >> 31;
  return static_cast<std::int64_t>(id % static_cast<std::uint64_t>(kPrime - 1)) + 1;
}

//! A running fingerprint: add(id, v) and sub(id, v) of the two sides of an equation.
struct Fingerprint {
  std::int64_t value = 0;  //!< in [0, kPrime)
  void add(std::uint64_t id, std::int64_t v) {
    const std::int64_t m = ((v % kPrime) + kPrime) % kPrime;
    value = static_cast<std::int64_t>((static_cast<__int128>(row_weight(id)) * m + value) % kPrime);
  }
  void sub(std::uint64_t id, std::int64_t v) { add(id, -v); }
};

}  // namespace tpcc

template <class Index>
CheckFigures TpccWorkload<Index>::check_figures() const {
  using tpcc::key_id;
  using tpcc::key_warehouse_district;
  struct DistrictFacts {
    std::int64_t ytd = 0, next_o_id = 0, max_o = 0, max_no = 0, min_no = INT64_MAX, count_no = 0, ol_cnt = 0,
                 ol_rows = 0, orders = 0;
  };
  struct OrderFacts {
    std::int32_t c_id = 0, carrier = 0, ol_cnt = 0, lines = 0;
    bool new_order = false;
  };
  struct CustomerFacts {
    std::int64_t balance = 0, ytd_payment = 0, delivered = 0, history = 0;
  };
  const std::uint64_t cpd = config_.customers_per_district;
  // (warehouse << 8 | district) << 32 | order: an order's or a customer's id within the instance.
  const auto order_id = [](std::uint64_t wd, std::uint64_t o) { return (wd << 32) | o; };
  std::unordered_map<std::uint64_t, DistrictFacts> facts;
  std::unordered_map<std::uint64_t, OrderFacts> order_facts;
  std::unordered_map<std::uint64_t, CustomerFacts> customer_facts;
  std::unordered_map<std::uint64_t, std::int64_t> w_ytd;
  std::int64_t customers = 0, balance_plus_ytd = 0, history_rows = 0, orders = 0, new_orders = 0, lines = 0;
  std::int64_t delivered = 0, unknown_customers = 0;
  tpcc::Fingerprint f8, f9, stock_ytd, stock_order_cnt, stock_remote_cnt;
  for (std::size_t s = 0; s < sites_; ++s) {
    warehouses_.for_each_row(s, [&](const Row& r) {
      w_ytd[tpcc::key_warehouse(r.key)] = Warehouse::ytd(&r);
      f8.add(tpcc::key_warehouse(r.key), Warehouse::ytd(&r));
    });
    districts_.for_each_row(s, [&](const Row& r) {
      DistrictFacts& f = facts[key_warehouse_district(r.key)];
      f.ytd = District::ytd(&r);
      f.next_o_id = District::next_o_id(&r);
      f9.add(key_warehouse_district(r.key), District::ytd(&r));
    });
    customers_.for_each_row(s, [&](const Row& r) {
      ++customers;
      balance_plus_ytd += Customer::balance(&r) + Customer::ytd_payment(&r);
      CustomerFacts& f = customer_facts[order_id(key_warehouse_district(r.key), key_id(r.key))];
      f.balance = Customer::balance(&r);
      f.ytd_payment = Customer::ytd_payment(&r);
    });
    history_.for_each_row(s, [&](const Row& r) {
      if (r.deleted()) return;
      ++history_rows;
      if (History::c_id(&r) < 1 || static_cast<std::uint64_t>(History::c_id(&r)) > cpd) ++unknown_customers;
      const auto w = static_cast<std::uint64_t>(History::w(&r)), d = static_cast<std::uint64_t>(History::d(&r));
      f8.sub(w, History::amount(&r));
      f9.sub((w << 8) | d, History::amount(&r));
      const std::uint64_t c_wd = (static_cast<std::uint64_t>(History::c_w(&r)) << 8) |
                                 static_cast<std::uint64_t>(History::c_d(&r));
      customer_facts[order_id(c_wd, static_cast<std::uint64_t>(History::c_id(&r)))].history += History::amount(&r);
    });
    orders_.for_each_row(s, [&](const Row& r) {
      if (r.deleted()) return;
      ++orders;
      DistrictFacts& f = facts[key_warehouse_district(r.key)];
      f.max_o = std::max<std::int64_t>(f.max_o, static_cast<std::int64_t>(key_id(r.key)));
      f.ol_cnt += Order::ol_cnt(&r);
      ++f.orders;
      OrderFacts& o = order_facts[order_id(key_warehouse_district(r.key), key_id(r.key))];
      o.c_id = Order::c_id(&r);
      o.carrier = Order::carrier_id(&r);
      o.ol_cnt = Order::ol_cnt(&r);
    });
    new_orders_.for_each_row(s, [&](const Row& r) {
      if (r.deleted()) return;
      ++new_orders;
      DistrictFacts& f = facts[key_warehouse_district(r.key)];
      const auto o = static_cast<std::int64_t>(key_id(r.key));
      f.max_no = std::max(f.max_no, o);
      f.min_no = std::min(f.min_no, o);
      ++f.count_no;
      order_facts[order_id(key_warehouse_district(r.key), key_id(r.key))].new_order = true;
    });
    stock_.for_each_row(s, [&](const Row& r) {
      stock_ytd.add(r.key, Stock::ytd(&r));
      stock_order_cnt.add(r.key, Stock::order_cnt(&r));
      stock_remote_cnt.add(r.key, Stock::remote_cnt(&r));
    });
  }
  // Order lines last: they need their orders' facts.
  std::int64_t bad7 = 0, bad_dist_info = 0;
  Stock::Text recomputed;
  for (std::size_t s = 0; s < sites_; ++s) {
    order_lines_.for_each_row(s, [&](const Row& r) {
      if (r.deleted()) return;
      ++lines;
      const std::uint64_t wd = key_warehouse_district(r.key), o = key_id(r.key) >> 4;
      ++facts[wd].ol_rows;
      const auto it = order_facts.find(order_id(wd, o));
      if (it == order_facts.end()) {
        ++bad7;  // a line without its order
        return;
      }
      OrderFacts& of = it->second;
      ++of.lines;
      if ((OrderLine::delivered(&r) == 0) != (of.carrier == 0)) ++bad7;
      if (OrderLine::delivered(&r) != 0) {
        delivered += OrderLine::amount(&r);
        customer_facts[order_id(wd, static_cast<std::uint64_t>(of.c_id))].delivered += OrderLine::amount(&r);
      }
      if (o > cpd) {  // a NewOrder of the run: its stock row counted it
        const auto w = tpcc::key_warehouse(r.key);
        const auto supply = static_cast<std::uint64_t>(OrderLine::supply_w(&r));
        const std::uint64_t stock_key = Stock::key(supply, static_cast<std::uint64_t>(OrderLine::i_id(&r)));
        stock_ytd.sub(stock_key, OrderLine::quantity(&r));
        stock_order_cnt.sub(stock_key, 1);
        stock_remote_cnt.sub(stock_key, supply != w ? 1 : 0);
        if (spec_) {  // OL_DIST_INFO: the supplying stock's S_DIST_xx of the order's district
          const Row* stock = find(stock_key);
          if (!stock) tpcc::stock_text(supply, static_cast<std::uint64_t>(OrderLine::i_id(&r)), recomputed);
          const Stock::Text& text = stock ? Stock::text(stock) : recomputed;
          if (std::memcmp(OrderLine::text(&r).dist_info, text.dist[(wd & 0xff) - 1],
                          sizeof OrderLine::Text::dist_info) != 0) {
            ++bad_dist_info;
          }
        }
      }
    });
  }
  std::int64_t bad1 = 0, bad2 = 0, bad3 = 0, bad4 = 0, bad5 = 0, bad6 = 0, bad10 = 0, bad11 = 0, bad12 = 0;
  std::unordered_map<std::uint64_t, std::int64_t> d_ytd_sum;  // by warehouse
  const std::int64_t delivered_at_load = static_cast<std::int64_t>(cpd - (cpd * 3) / 10);
  for (const auto& [k, f] : facts) {
    d_ytd_sum[tpcc::warehouse_of_district(k)] += f.ytd;
    if (f.next_o_id - 1 != f.max_o || (f.count_no > 0 && f.max_no != f.max_o)) ++bad2;
    if (f.count_no > 0 && f.max_no - f.min_no + 1 != f.count_no) ++bad3;
    if (f.ol_cnt != f.ol_rows) ++bad4;
    if (f.orders - f.count_no != delivered_at_load) ++bad11;
  }
  for (const auto& [w, ytd] : w_ytd) {
    if (d_ytd_sum[w] != ytd) ++bad1;
  }
  for (const auto& [k, o] : order_facts) {
    if ((o.carrier == 0) != o.new_order) ++bad5;
    if (o.ol_cnt != o.lines) ++bad6;
  }
  for (const auto& [k, c] : customer_facts) {
    if (c.balance != c.delivered - c.history) ++bad10;
    if (c.balance + c.ytd_payment != c.delivered) ++bad12;
  }
  // Condition 11 holds while nothing is delivered: only for mixes without Delivery.
  const bool delivers = weights_[kDeliveryTxn] > 0;
  return {{"condition_1_warehouses", bad1},
          {"condition_2_districts", bad2},
          {"condition_3_districts", bad3},
          {"condition_4_districts", bad4},
          {"condition_5_orders", bad5},
          {"condition_6_orders", bad6},
          {"condition_7_order_lines", bad7},
          {"condition_8_fingerprint", f8.value},
          {"condition_9_fingerprint", f9.value},
          {"condition_10_customers", bad10},
          {"condition_11_districts", delivers ? 0 : bad11},
          {"condition_11_checked", delivers ? 0 : 1},
          {"condition_12_customers", bad12},
          {"history_unknown_customers", unknown_customers},
          {"order_line_dist_info", bad_dist_info},
          {"stock_ytd_fingerprint", stock_ytd.value},
          {"stock_order_cnt_fingerprint", stock_order_cnt.value},
          {"stock_remote_cnt_fingerprint", stock_remote_cnt.value},
          {"customer_balance_plus_ytd", balance_plus_ytd},
          {"delivered_order_line_amount", delivered},
          {"warehouse_rows", static_cast<std::int64_t>(w_ytd.size())},
          {"district_rows", static_cast<std::int64_t>(facts.size())},
          {"customer_rows", customers},
          {"history_rows", history_rows},
          {"order_rows", orders},
          {"new_order_rows", new_orders},
          {"order_line_rows", lines},
          {"item_rows", static_cast<std::int64_t>(items_.rows(0))},
          {"stock_rows", rows_of(stock_)},
          {"table_bytes", static_cast<std::int64_t>(memory_bytes())},
          {"row_bytes", static_cast<std::int64_t>(row_bytes())},
          {"growing_txns", orders + history_rows},
          {"index_roots", static_cast<std::int64_t>(index_.roots())},
          {"index_latched_roots", index_.latching() ? static_cast<std::int64_t>(index_.roots()) : 0}};
}

template <class Index>
std::uint64_t TpccWorkload<Index>::memory_bytes() const {
  std::uint64_t bytes = history_.bytes();
  // Keyed tables, each key up to 128 bytes of hash slots (16-byte slots at a load factor of
  // 1/2 to 1/4, and as much again in the arrays a partition outgrew, which stay readable for
  // optimistic readers) or B+tree entries; an order also has an entry in the by-customer
  // B+tree (half-full nodes: about 48 bytes). Erring high keeps the budget a bound.
  for (const Table* t :
       {&warehouses_, &districts_, &customers_, &orders_, &new_orders_, &order_lines_, &items_, &stock_}) {
    bytes += t->bytes() + kIndexBytesPerKey * (t->bytes() / t->row_stride());
  }
  bytes += kOrderIndexBytesPerKey * (orders_.bytes() / orders_.row_stride());
  return bytes;
}

template <class Index>
std::uint64_t TpccWorkload<Index>::row_bytes() const {
  std::uint64_t bytes = 0;
  for (const Table* t :
       {&warehouses_, &districts_, &customers_, &history_, &orders_, &new_orders_, &order_lines_, &items_, &stock_}) {
    for (std::size_t s = 0; s < t->sites(); ++s) bytes += t->rows(s) * t->row_stride();
  }
  return bytes;
}

template <class Index>
bool TpccWorkload<Index>::corrupt_for_test(const std::string& what) {
  // The first row of site 0 that the corruption changes.
  Row* found = nullptr;
  const auto first = [&](const Table& table, auto&& pick) {
    found = nullptr;
    table.for_each_row(0, [&](Row& r) {
      if (!found && !r.deleted() && pick(&r)) found = &r;
    });
    return found != nullptr;
  };
  const auto any = [](const Row*) { return true; };
  if (what == "warehouse.ytd") {
    if (!first(warehouses_, any)) return false;
    Warehouse::set_ytd(found, Warehouse::ytd(found) + 1);
  } else if (what == "district.ytd") {
    if (!first(districts_, any)) return false;
    District::set_ytd(found, District::ytd(found) + 1);
  } else if (what == "district.next_o_id") {
    if (!first(districts_, any)) return false;
    District::set_next_o_id(found, District::next_o_id(found) + 1);
  } else if (what == "new_order.delete") {  // one from the middle of its district's run
    if (!first(new_orders_, [&](const Row* r) {
          const Row* dist = find(District::key(tpcc::key_warehouse(r->key), (r->key >> 32) & 0xff));
          return static_cast<std::int64_t>(tpcc::key_id(r->key)) == District::next_delivery(dist) + 1;
        })) {
      return false;
    }
    index_.erase(found->key);
    new_orders_.release(0, found);
  } else if (what == "order.ol_cnt") {
    if (!first(orders_, any)) return false;
    Order::set_ol_cnt(found, Order::ol_cnt(found) + 1);
  } else if (what == "order.carrier_id") {  // an undelivered order
    if (!first(orders_, [&](const Row* r) { return Order::carrier_id(r) == 0; })) return false;
    Order::set_carrier_id(found, 1);
  } else if (what == "order_line.delivery_d") {  // an undelivered line
    if (!first(order_lines_, [&](const Row* r) { return OrderLine::delivered(r) == 0; })) return false;
    OrderLine::set_delivered(found, now());
  } else if (what == "order_line.delete") {
    if (!first(order_lines_, any)) return false;
    index_.erase(found->key);
    found->key = Row::kDeletedKey;
  } else if (what == "order_line.dist_info") {  // a line of the run's NewOrders (spec layout)
    if (!spec_ || !first(order_lines_, [&](const Row* r) { return tpcc::key_id(r->key) >> 4 > config_.customers_per_district; })) {
      return false;
    }
    OrderLine::text(found).dist_info[0] ^= 1;
  } else if (what == "order_line.amount") {  // a delivered line: the customer was credited
    if (!first(order_lines_, [&](const Row* r) { return OrderLine::delivered(r) != 0 && OrderLine::amount(r) > 0; })) {
      return false;
    }
    OrderLine::set_amount(found, OrderLine::amount(found) + 1);
  } else if (what == "history.amount") {
    if (!first(history_, any)) return false;
    History::set_amount(found, History::amount(found) + 1);
  } else if (what == "customer.balance") {
    if (!first(customers_, any)) return false;
    Customer::set_balance(found, Customer::balance(found) + 1);
  } else if (what == "customer.ytd_payment") {
    if (!first(customers_, any)) return false;
    Customer::set_ytd_payment(found, Customer::ytd_payment(found) + 1);
  } else if (what == "stock.ytd" || what == "stock.order_cnt" || what == "stock.remote_cnt") {
    if (!first(stock_, any)) return false;
    if (what == "stock.ytd") Stock::set_ytd(found, Stock::ytd(found) + 1);
    if (what == "stock.order_cnt") Stock::set_order_cnt(found, Stock::order_cnt(found) + 1);
    if (what == "stock.remote_cnt") Stock::set_remote_cnt(found, Stock::remote_cnt(found) + 1);
  } else {
    throw ConfigError("tpcc corruption", "'" + what + "' names no corruption this test hook knows");
  }
  return true;
}

namespace tpcc {
//! The conditions whose figure counts violations (0 when consistent): figure, then what a
//! violation means.
inline constexpr std::pair<const char*, const char*> kCountedConditions[] = {
    {"condition_1_warehouses", "condition 1: warehouses whose W_YTD is not the sum of D_YTD"},
    {"condition_2_districts", "condition 2: districts whose D_NEXT_O_ID - 1, max(O_ID) and max(NO_O_ID) differ"},
    {"condition_3_districts", "condition 3: districts whose new orders are not contiguous"},
    {"condition_4_districts", "condition 4: districts whose sum(O_OL_CNT) is not the number of order lines"},
    {"condition_5_orders", "condition 5: orders whose O_CARRIER_ID is null but have no new-order row, or not null "
                           "and have one"},
    {"condition_6_orders", "condition 6: orders whose O_OL_CNT is not the number of their lines"},
    {"condition_7_order_lines", "condition 7: order lines whose OL_DELIVERY_D is null and their order's "
                                "O_CARRIER_ID is not, or the other way round (or whose order is missing)"},
    {"condition_10_customers", "condition 10: customers whose C_BALANCE is not the sum of their delivered "
                               "lines' OL_AMOUNT less their H_AMOUNT"},
    {"condition_11_districts", "condition 11: districts whose orders less new orders are not the loaded "
                               "delivered orders (a mix without Delivery)"},
    {"condition_12_customers", "condition 12: customers whose C_BALANCE + C_YTD_PAYMENT is not the sum of "
                               "their delivered lines' OL_AMOUNT"},
    {"history_unknown_customers", "History rows whose H_C_ID names no customer"},
    {"order_line_dist_info", "the run's order lines whose OL_DIST_INFO is not their supplying stock's "
                             "S_DIST_xx of their district (spec layout)"}};
//! The conditions whose figure is a fingerprint (a multiple of kPrime when consistent).
inline constexpr std::pair<const char*, const char*> kFingerprintConditions[] = {
    {"condition_8_fingerprint", "condition 8: some warehouse's W_YTD is not the sum of its H_AMOUNT"},
    {"condition_9_fingerprint", "condition 9: some district's D_YTD is not the sum of its H_AMOUNT"},
    {"stock_ytd_fingerprint", "stock: some S_YTD is not the sum of the run's order lines' OL_QUANTITY of it"},
    {"stock_order_cnt_fingerprint", "stock: some S_ORDER_CNT is not the number of the run's order lines of it"},
    {"stock_remote_cnt_fingerprint", "stock: some S_REMOTE_CNT is not the number of the run's remote order lines of it"}};
}  // namespace tpcc

template <class Index>
std::vector<std::string> TpccWorkload<Index>::conditions() {
  std::vector<std::string> names;
  for (const auto& [name, what] : tpcc::kCountedConditions) names.emplace_back(name);
  for (const auto& [name, what] : tpcc::kFingerprintConditions) names.emplace_back(name);
  return names;
}

template <class Index>
std::vector<std::string> TpccWorkload<Index>::verify(const CheckMap& checks) {
  std::vector<std::string> failures;
  for (const auto& [name, what] : tpcc::kCountedConditions) {
    if (figure(checks, name) != 0) failures.push_back(std::string("tpcc: ") + what + ": " + grouped(figure(checks, name)));
  }
  for (const auto& [name, what] : tpcc::kFingerprintConditions) {
    if (figure(checks, name) % tpcc::kPrime != 0) failures.push_back(std::string("tpcc: ") + what);
  }
  return failures;
}

}  // namespace islands
