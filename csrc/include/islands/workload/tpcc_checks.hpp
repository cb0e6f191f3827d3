#pragma once
// TPC-C's consistency conditions (clause 3.3.2.1-3.3.2.4) and the money balances over this
// instance's warehouses, read after a run.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <unordered_map>

#include "islands/workload/tpcc_workload.hpp"

namespace islands {

template <class Index>
CheckFigures TpccWorkload<Index>::check_figures() const {
  struct DistrictFacts {
    std::int64_t ytd = 0, next_o_id = 0, max_o = 0, max_no = 0, min_no = INT64_MAX, count_no = 0, ol_cnt = 0, ol_rows = 0;
  };
  std::unordered_map<std::uint64_t, DistrictFacts> facts;  // by tpcc::key_warehouse_district
  std::unordered_map<std::uint64_t, std::int64_t> w_ytd, w_history;
  std::int64_t customers = 0, balance_plus_ytd = 0, history_rows = 0, orders = 0, new_orders = 0, lines = 0;
  std::int64_t delivered = 0;
  const auto wd = [](std::uint64_t k) { return tpcc::key_warehouse_district(k); };
  const auto id = [](std::uint64_t k) { return static_cast<std::int64_t>(tpcc::key_id(k)); };
  for (std::size_t s = 0; s < sites_; ++s) {
    warehouses_.for_each_row(s, [&](const Row& r) { w_ytd[tpcc::key_warehouse(r.key)] = Warehouse::ytd(&r); });
    districts_.for_each_row(s, [&](const Row& r) {
      DistrictFacts& f = facts[wd(r.key)];
      f.ytd = District::ytd(&r);
      f.next_o_id = District::next_o_id(&r);
    });
    customers_.for_each_row(s, [&](const Row& r) {
      ++customers;
      balance_plus_ytd += Customer::balance(&r) + Customer::ytd_payment(&r);
    });
    history_.for_each_row(s, [&](const Row& r) {
      if (r.deleted()) return;
      ++history_rows;
      w_history[static_cast<std::uint64_t>(History::w(&r))] += History::amount(&r);
    });
    orders_.for_each_row(s, [&](const Row& r) {
      if (r.deleted()) return;
      ++orders;
      DistrictFacts& f = facts[wd(r.key)];
      f.max_o = std::max<std::int64_t>(f.max_o, id(r.key));
      f.ol_cnt += Order::ol_cnt(&r);
    });
    new_orders_.for_each_row(s, [&](const Row& r) {
      if (r.deleted() || NewOrder::present(&r) != 1) return;
      ++new_orders;
      DistrictFacts& f = facts[wd(r.key)];
      const std::int64_t o = id(r.key);
      f.max_no = std::max(f.max_no, o);
      f.min_no = std::min(f.min_no, o);
      ++f.count_no;
    });
    order_lines_.for_each_row(s, [&](const Row& r) {
      if (r.deleted()) return;
      ++lines;
      if (OrderLine::delivered(&r) != 0) delivered += OrderLine::amount(&r);
      ++facts[wd(r.key)].ol_rows;
    });
  }
  std::int64_t bad1 = 0, bad2 = 0, bad3 = 0, bad4 = 0, bad_history = 0;
  std::unordered_map<std::uint64_t, std::int64_t> d_ytd_sum;  // by warehouse
  for (const auto& [k, f] : facts) {
    d_ytd_sum[tpcc::warehouse_of_district(k)] += f.ytd;
    if (f.next_o_id - 1 != f.max_o || (f.count_no > 0 && f.max_no != f.max_o)) ++bad2;
    if (f.count_no > 0 && f.max_no - f.min_no + 1 != f.count_no) ++bad3;
    if (f.ol_cnt != f.ol_rows) ++bad4;
  }
  for (const auto& [w, ytd] : w_ytd) {
    if (d_ytd_sum[w] != ytd) ++bad1;
    if (w_history[w] != ytd) ++bad_history;
  }
  return {{"condition_1_warehouses", bad1},      {"condition_2_districts", bad2},
          {"condition_3_districts", bad3},       {"condition_4_districts", bad4},
          {"warehouses_unlike_history", bad_history}, {"customer_balance_plus_ytd", balance_plus_ytd},
          {"delivered_order_line_amount", delivered},
          {"warehouse_rows", static_cast<std::int64_t>(w_ytd.size())},
          {"district_rows", static_cast<std::int64_t>(facts.size())},
          {"customer_rows", customers},          {"history_rows", history_rows},
          {"order_rows", orders},                {"new_order_rows", new_orders},
          {"order_line_rows", lines},            {"item_rows", static_cast<std::int64_t>(items_.rows(0))},
          {"stock_rows", rows_of(stock_)}};
}

template <class Index>
std::vector<std::string> TpccWorkload<Index>::verify(const CheckMap& checks) {
  std::vector<std::string> failures;
  for (const auto& [name, what] : {
           std::pair<const char*, const char*>{"condition_1_warehouses",
                                               "condition 1: warehouses whose W_YTD is not the sum of D_YTD"},
           {"condition_2_districts", "condition 2: districts whose D_NEXT_O_ID - 1, max(O_ID) and max(NO_O_ID) differ"},
           {"condition_3_districts", "condition 3: districts whose new orders are not contiguous"},
           {"condition_4_districts", "condition 4: districts whose sum(O_OL_CNT) is not the number of order lines"},
           {"warehouses_unlike_history", "warehouses whose W_YTD is not the sum of their history"}}) {
    if (figure(checks, name) != 0) failures.push_back(std::string("tpcc: ") + what + ": " + grouped(figure(checks, name)));
  }
  const std::int64_t owed = figure(checks, "customer_balance_plus_ytd");
  const std::int64_t delivered = figure(checks, "delivered_order_line_amount");
  if (owed != delivered) {
    failures.push_back("tpcc: customers' balance + YTD payment sums to " + grouped(owed) + " cents, not the " +
                       grouped(delivered) + " cents of delivered order lines");
  }
  return failures;
}

}  // namespace islands
