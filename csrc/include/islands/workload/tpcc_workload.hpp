#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "islands/cc/concurrency_control.hpp"
#include "islands/common/check.hpp"
#include "islands/common/config_error.hpp"
#include "islands/common/random.hpp"
#include "islands/exec/engine_config.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/index/btree_index.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/perf/component_clock.hpp"
#include "islands/storage/table.hpp"
#include "islands/txn/txn_context.hpp"
#include "islands/workload/tpcc_config.hpp"
#include "islands/workload/txn_part.hpp"
#include "islands/exec/run_config.hpp"
#include "islands/workload/workload.hpp"

namespace islands {

//! TPC-C's data and its five transactions (see TpccConfig). One primary index holds every
//! keyed table (table tag in the top byte, then warehouse, district and the table's own id);
//! Customer has a secondary index by (warehouse, district, last name) whose lists are sorted
//! by first name; Order has an ordered secondary index by (warehouse, district, customer,
//! order) whose range reads find a customer's latest order. Delivery takes each district's
//! oldest new order from a cursor in the district row and marks it gone (`present` = 0). Money is in cents. A transaction is a list of operations,
//! each executed by the site of its warehouse; every operation of a part finds and locks its
//! rows and checks its conditions before any operation changes anything, so a user rollback
//! (NewOrder's unused item) leaves nothing to undo. Inserted rows stay in the index; an
//! aborted insert leaves its row marked deleted, and a retry takes it up again.
template <class Index>
class TpccWorkload {
 public:
  using IndexType = Index;    //!< the primary index structure
  using Config = TpccConfig;  //!< its settings

  //! The five transactions, by type number.
  static std::vector<std::string> transaction_names() { return {kTpccTxnNames.begin(), kTpccTxnNames.end()}; }
  //! The settings, for a deployment of total_sites sites; inserts need index latching when
  //! several workers share the instance.
  static void validate_settings(const Config& config, const RunConfig& run, std::uint64_t total_sites) {
    config.validate_fit(total_sites);
    if (!run.engine.latching && run.driver.cpus.size() > 1) {
      throw ConfigError("engine.latching", std::string("tpcc inserts index keys while it runs, so an instance of ") +
                                        std::to_string(run.driver.cpus.size()) + " workers needs index latching");
    }
  }
  //! Its writes are not logged yet: redo does not cover deletes (Delivery) and the secondary and ordered indexes.
  static constexpr bool kLogs = false;

  static constexpr std::uint32_t kDistricts = 10;
  static constexpr std::uint32_t kLastNames = 1000;
  // Columns per table.
  static constexpr std::uint32_t kWarehouseColumns = 3;  // ytd (0-1), tax
  static constexpr std::uint32_t kDistrictColumns = 5;   // ytd (0-1), tax, next_o_id, next to deliver
  static constexpr std::uint32_t kCustomerColumns = 11;  // balance (0-1), ytd_payment (2-3), payment_cnt,
                                                         // delivery_cnt, discount, bad credit, last, first, id
  static constexpr std::uint32_t kHistoryColumns = 7;    // c_id, c_d, c_w, d, w, amount (5-6)
  static constexpr std::uint32_t kOrderColumns = 5;      // c_id, entry_d, carrier_id, ol_cnt, all_local
  static constexpr std::uint32_t kNewOrderColumns = 2;   // o_id, present
  static constexpr std::uint32_t kOrderLineColumns = 5;  // i_id, supply_w, quantity, amount, delivery_d
  static constexpr std::uint32_t kItemColumns = 2;       // price, im_id
  static constexpr std::uint32_t kStockColumns = 4;      // quantity, ytd, order_cnt, remote_cnt

  enum TxnType : std::uint64_t { kNewOrderTxn = 0, kPaymentTxn = 1, kOrderStatusTxn = 2, kDeliveryTxn = 3, kStockLevelTxn = 4 };
  //! Operations: [kNewOrderHome, w, d, c, n, all_local, n x (item, supply_w, qty)],
  //! [kStock, w, item, qty, remote], [kPaymentHome, w, d, amount, c_w, c_d, c_id or 0],
  //! [kPaymentCustomer, c_w, c_d, by_name, c_id or last, amount], [kOrderStatus, w, d, by_name,
  //! c_id or last], [kDelivery, w, carrier], [kStockLevel, w, d, threshold].
  enum Op : std::uint64_t {
    kNewOrderHome = 1, kStock = 2, kPaymentHome = 3, kPaymentCustomer = 4, kOrderStatus = 5, kDelivery = 6, kStockLevel = 7
  };
  enum Tag : std::uint64_t {
    kWarehouse = 1, kDistrict = 2, kCustomer = 3, kOrder = 4, kNewOrder = 5, kOrderLine = 6, kItem = 7, kStockTag = 8
  };

  //! One transaction: its type and its operations.
  struct Txn {
    std::uint64_t type = 0;
    std::vector<std::uint64_t> words;
    std::vector<Row*> rows;  //!< scratch
  };

  TpccWorkload(const TpccConfig& config, const EngineConfig& engine, std::size_t sites,
               std::size_t first_site = 0, std::size_t total_sites = 0)
      : config_(config),
        engine_(engine),
        sites_(sites),
        first_site_(first_site),
        total_warehouses_((total_sites ? total_sites : sites) * config.warehouses_per_site),
        weights_(parse_tpcc_mix(config.mix)),
        warehouses_(sites, kWarehouseColumns),
        districts_(sites, kDistrictColumns),
        customers_(sites, kCustomerColumns),
        history_(sites, kHistoryColumns),
        orders_(sites, kOrderColumns),
        new_orders_(sites, kNewOrderColumns),
        order_lines_(sites, kOrderLineColumns),
        items_(1, kItemColumns),
        stock_(sites, kStockColumns),
        index_(make_index(config.items + sites * std::size_t{config.warehouses_per_site} *
                                             (config.items + 14 * kDistricts * std::size_t{config.customers_per_district}))),
        by_customer_(true),
        by_last_(sites * std::size_t{config.warehouses_per_site} * kDistricts * kLastNames) {
    config_.validate_fit(total_sites ? total_sites : sites);
  }

  //! Loads local site `site` (its owner thread: first touch): its warehouses with their
  //! districts, customers (and their last-name lists), history, orders, new orders, order
  //! lines and stock; site 0 also loads this instance's copy of Item.
  void load_site(std::size_t site) {
    Random rng(0x7cc0ULL + first_site_ + site);
    if (site == 0) {
      items_.reserve(0, config_.items);
      for (std::uint64_t i = 1; i <= config_.items; ++i) {
        Row* item = add(items_, 0, key(kItem, 0, 0, i));
        item->columns()[0] = static_cast<std::int32_t>(100 + rng.below(9901));  // $1.00 - $100.00
        item->columns()[1] = static_cast<std::int32_t>(1 + rng.below(10000));
      }
    }
    const std::uint64_t cpd = config_.customers_per_district;
    for (std::uint64_t local = 0; local < config_.warehouses_per_site; ++local) {
      const std::uint64_t w = (first_site_ + site) * config_.warehouses_per_site + local;
      Row* wh = add(warehouses_, site, key(kWarehouse, w, 0, 0));
      set64(wh, 0, 30000000 * static_cast<std::int64_t>(cpd) / 3000);  // $300,000.00 at 3000 customers
      wh->columns()[2] = static_cast<std::int32_t>(rng.below(2001));  // tax 0-20.00%, in basis points
      stock_.reserve(site, config_.items);
      for (std::uint64_t i = 1; i <= config_.items; ++i) {
        Row* s = add(stock_, site, key(kStockTag, w, 0, i));
        s->columns()[0] = static_cast<std::int32_t>(10 + rng.below(91));
      }
      for (std::uint64_t d = 1; d <= kDistricts; ++d) {
        Row* dist = add(districts_, site, key(kDistrict, w, d, 0));
        set64(dist, 0, 3000000 * static_cast<std::int64_t>(cpd) / 3000);  // $30,000.00
        dist->columns()[2] = static_cast<std::int32_t>(rng.below(2001));
        dist->columns()[3] = static_cast<std::int32_t>(cpd + 1);
        dist->columns()[4] = static_cast<std::int32_t>(cpd - (cpd * 3) / 10 + 1);  // oldest new order
        for (std::uint64_t c = 1; c <= cpd; ++c) {
          Row* cust = add(customers_, site, key(kCustomer, w, d, c));
          set64(cust, 0, -1000);  // balance -$10.00
          set64(cust, 2, 1000);   // ytd_payment $10.00
          cust->columns()[4] = 1;
          cust->columns()[6] = static_cast<std::int32_t>(rng.below(5001));  // discount 0-50%
          cust->columns()[7] = rng.below(10) == 0 ? 1 : 0;                     // 10% bad credit
          const std::uint64_t last = c <= kLastNames ? c - 1 : nurand(rng, 255, 0, kLastNames - 1, kCLastLoad);
          cust->columns()[8] = static_cast<std::int32_t>(last);
          cust->columns()[9] = static_cast<std::int32_t>(rng.below(1u << 30));  // first name
          cust->columns()[10] = static_cast<std::int32_t>(c);
          by_last_[last_slot(w, d, last)].push_back(cust);
          Row* h = history_.allocate(site, 0);
          h->columns()[0] = static_cast<std::int32_t>(c);
          h->columns()[1] = h->columns()[3] = static_cast<std::int32_t>(d);
          h->columns()[2] = h->columns()[4] = static_cast<std::int32_t>(w);
          set64(h, 5, 1000);
        }
        for (std::uint64_t last = 0; last < kLastNames; ++last) {
          auto& list = by_last_[last_slot(w, d, last)];
          std::sort(list.begin(), list.end(), [](const Row* a, const Row* b) { return a->columns()[9] < b->columns()[9]; });
        }
        // Initial orders: one per customer in a random order; the last 30% are undelivered.
        std::vector<std::uint64_t> perm(cpd);
        for (std::uint64_t i = 0; i < cpd; ++i) perm[i] = i + 1;
        for (std::uint64_t i = cpd; i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
        const std::uint64_t first_new = cpd - (cpd * 3) / 10 + 1;
        for (std::uint64_t o = 1; o <= cpd; ++o) {
          Row* order = add(orders_, site, key(kOrder, w, d, o));
          const std::uint64_t lines = 5 + rng.below(11);
          order->columns()[0] = static_cast<std::int32_t>(perm[o - 1]);
          order->columns()[2] = o < first_new ? static_cast<std::int32_t>(1 + rng.below(10)) : 0;
          order->columns()[3] = static_cast<std::int32_t>(lines);
          order->columns()[4] = 1;
          by_customer_.insert(customer_order_key(w, d, perm[o - 1], o), reinterpret_cast<std::uint64_t>(order));
          if (o >= first_new) {
            Row* no = add(new_orders_, site, key(kNewOrder, w, d, o));
            no->columns()[0] = static_cast<std::int32_t>(o);
            no->columns()[1] = 1;
          }
          for (std::uint64_t ol = 1; ol <= lines; ++ol) {
            Row* line = add(order_lines_, site, key(kOrderLine, w, d, (o << 4) | ol));
            line->columns()[0] = static_cast<std::int32_t>(1 + rng.below(config_.items));
            line->columns()[1] = static_cast<std::int32_t>(w);
            line->columns()[2] = 5;
            line->columns()[3] = o < first_new ? 0 : static_cast<std::int32_t>(1 + rng.below(999999));
            line->columns()[4] = o < first_new ? 1 : 0;  // delivered
          }
        }
      }
    }
  }

  //! After every site is loaded: switch index latching to the run's setting.
  void finish_load(bool single_threaded) {
    index_.set_latching(engine_.latching && !single_threaded);
    by_customer_.set_latching(engine_.latching && !single_threaded);
  }

  //! Draws the next transaction of a worker whose home (global) site is `home`.
  void generate(Txn& txn, Random& rng, std::size_t home) const {
    std::uint64_t pick = rng.below(100), type = 0;
    while (pick >= weights_[type]) pick -= weights_[type++];
    txn.type = type;
    const std::uint64_t w = home * config_.warehouses_per_site + rng.below(config_.warehouses_per_site);
    const std::uint64_t d = 1 + rng.below(kDistricts);
    const std::uint64_t cpd = config_.customers_per_district;
    txn.words.clear();
    if (type == kNewOrderTxn) {
      const std::uint64_t c = nurand(rng, 1023, 1, cpd, kCId);
      const std::uint64_t n = 5 + rng.below(11);
      const bool rollback = config_.new_order_rollback > 0 && rng.unit() < config_.new_order_rollback;
      txn.words = {kNewOrderHome, w, d, c, n, 1};
      std::uint64_t all_local = 1;
      for (std::uint64_t k = 0; k < n; ++k) {
        std::uint64_t item, supply;
        do {
          item = (rollback && k == n - 1) ? config_.items + 1 : nurand(rng, 8191, 1, config_.items, kOlIId);
          supply = w;
          if (config_.new_order_remote_item > 0 && rng.unit() < config_.new_order_remote_item) {
            supply = other_warehouse(rng, w);
          }
        } while (has_item(txn.words, k, item, supply));
        if (supply != w) all_local = 0;
        txn.words.insert(txn.words.end(), {item, supply, 1 + rng.below(10)});
      }
      txn.words[5] = all_local;
      for (std::uint64_t k = 0; k < n; ++k) {
        const std::uint64_t* line = &txn.words[6 + 3 * k];
        if (line[0] > config_.items) continue;  // the unused item: no stock to update
        txn.words.insert(txn.words.end(), {kStock, line[1], line[0], line[2], line[1] != w ? 1u : 0u});
      }
    } else if (type == kOrderStatusTxn) {
      const bool by_name = rng.below(100) < 60;
      txn.words = {kOrderStatus, w, d, by_name ? 1u : 0u,
                   by_name ? nurand(rng, 255, 0, kLastNames - 1, kCLastRun) : nurand(rng, 1023, 1, cpd, kCId)};
    } else if (type == kDeliveryTxn) {
      txn.words = {kDelivery, w, 1 + rng.below(10)};
    } else if (type == kStockLevelTxn) {
      txn.words = {kStockLevel, w, d, 10 + rng.below(11)};
    } else {
      const std::uint64_t amount = 100 + rng.below(500000);  // $1.00 - $5,000.00
      std::uint64_t c_w = w, c_d = d;
      if (config_.payment_remote > 0 && rng.unit() < config_.payment_remote) {
        c_w = other_warehouse(rng, w);
        c_d = 1 + rng.below(kDistricts);
      }
      const bool by_name = config_.payment_by_name > 0 && rng.unit() < config_.payment_by_name;
      const std::uint64_t who = by_name ? nurand(rng, 255, 0, kLastNames - 1, kCLastRun) : nurand(rng, 1023, 1, cpd, kCId);
      txn.words = {kPaymentHome, w, d, amount, c_w, c_d, by_name ? 0 : who,
                   kPaymentCustomer, c_w, c_d, by_name ? 1u : 0u, who, amount};
    }
  }


  //! Splits a transaction into one part per instance; a part goes to the site of its first
  //! operation's warehouse.
  void split(const Txn& txn, const std::vector<std::uint32_t>& instance_of_site,
             std::vector<TxnPart>& parts) const {
    split_operations(txn.words, instance_of_site, parts, [&](std::size_t at) {
      return std::pair<std::size_t, std::uint64_t>{op_words(&txn.words[at]), txn.words[at + 1] / config_.warehouses_per_site};
    });
  }

  //! Whether a part writes (OrderStatus and StockLevel only read).
  bool part_updates(const std::uint64_t* words, std::size_t) const {
    return words[0] != kOrderStatus && words[0] != kStockLevel;
  }
  std::size_t max_part_words() const { return 6 + 15 * 3 + 15 * 5; }          //!< sizes fragments
  //! Rows a committed transaction updated or inserted (statistics).
  std::size_t row_updates(const Txn& txn) const {
    switch (txn.type) {
      case kNewOrderTxn: return 3 + 2 * txn.words[4];
      case kPaymentTxn: return 4;
      case kDeliveryTxn: return 10 * 4;  // about: district, new order, order, customer per district
      default: return 0;
    }
  }
  std::size_t max_columns() const { return kCustomerColumns; }  //!< widest row
  std::size_t type_of(const Txn& txn) const { return txn.type; }  //!< index into kTpccTxnNames

  //! Executes the operations words[0, n) (all of warehouses this instance holds) under `cc`.
  template <class CC>
  TxnResult execute_part(const std::uint64_t* words, std::size_t n, std::vector<Row*>& rows, TxnContext& ctx,
                         const CC& cc, std::uint64_t& checksum) {
    ComponentScope execution(ctx.clock(), Component::execution);
    AbortReason reason = AbortReason::lock_conflict;
    const auto fail = [&](bool user) {
      if constexpr (CC::kLocks) ctx.abort();
      return user ? TxnResult::rollback() : TxnResult::abort(reason);
    };
    const auto lock = [&](Row* row, LockMode mode) { return cc.lock(row, mode, ctx, reason); };
    // Phase 1: find and lock every row, check every condition.
    rows.clear();
    for (std::size_t at = 0; at < n; at += op_words(&words[at])) {
      const std::uint64_t* op = &words[at];
      switch (op[0]) {
        case kNewOrderHome: {
          Row* wh = find(key(kWarehouse, op[1], 0, 0));
          Row* dist = find(key(kDistrict, op[1], op[2], 0));
          Row* cust = find(key(kCustomer, op[1], op[2], op[3]));
          ISLANDS_CHECK(wh && dist && cust, "TPC-C NewOrder rows missing");
          for (std::uint64_t k = 0; k < op[4]; ++k) {
            if (!find(key(kItem, 0, 0, op[6 + 3 * k]))) return fail(true);  // unused item: roll back
          }
          if (!lock(wh, LockMode::shared) || !lock(dist, LockMode::exclusive) || !lock(cust, LockMode::shared)) {
            return fail(false);
          }
          rows.insert(rows.end(), {wh, dist, cust});
          break;
        }
        case kStock: {
          Row* s = find(key(kStockTag, op[1], 0, op[2]));
          ISLANDS_CHECK(s != nullptr, "TPC-C stock row missing");
          if (!lock(s, LockMode::exclusive)) return fail(false);
          rows.push_back(s);
          break;
        }
        case kPaymentHome: {
          Row* wh = find(key(kWarehouse, op[1], 0, 0));
          Row* dist = find(key(kDistrict, op[1], op[2], 0));
          ISLANDS_CHECK(wh && dist, "TPC-C Payment rows missing");
          if (!lock(wh, LockMode::exclusive) || !lock(dist, LockMode::exclusive)) return fail(false);
          rows.insert(rows.end(), {wh, dist});
          break;
        }
        case kPaymentCustomer: {
          Row* cust = op[3] ? by_last_name(op[1], op[2], op[4]) : find(key(kCustomer, op[1], op[2], op[4]));
          ISLANDS_CHECK(cust != nullptr, "TPC-C Payment customer missing");
          if (!lock(cust, LockMode::exclusive)) return fail(false);
          rows.push_back(cust);
          break;
        }
        case kOrderStatus: {
          // The customer, its latest order (ordered secondary index, newest valid entry), and
          // that order's lines; read only.
          Row* cust = op[3] ? by_last_name(op[1], op[2], op[4]) : find(key(kCustomer, op[1], op[2], op[4]));
          ISLANDS_CHECK(cust != nullptr, "TPC-C OrderStatus customer missing");
          if (!lock(cust, LockMode::shared)) return fail(false);
          const auto c = static_cast<std::uint64_t>(cust->columns()[10]);
          static thread_local std::vector<Row*> candidates_;  // per worker: several share this workload
          candidates_.clear();
          by_customer_.scan(customer_order_key(op[1], op[2], c, 0), customer_order_key(op[1], op[2], c, kMaxOrder),
                            [&](std::uint64_t, std::uint64_t value) {
                              candidates_.push_back(reinterpret_cast<Row*>(value));
                              return true;
                            });
          for (std::size_t i = candidates_.size(); i-- > 0;) {
            Row* order = candidates_[i];
            if (!lock(order, LockMode::shared)) return fail(false);
            // An entry an aborted insert left may now name another customer's order.
            if (order->deleted() || static_cast<std::uint64_t>(order->columns()[0]) != c) continue;
            const std::uint64_t o = order->key & 0xffffffffULL;
            for (std::int32_t ol = 1; ol <= order->columns()[3]; ++ol) {
              Row* line = find(key(kOrderLine, op[1], op[2], (o << 4) | static_cast<std::uint64_t>(ol)));
              ISLANDS_CHECK(line != nullptr, "TPC-C order line missing");
              if (!lock(line, LockMode::shared)) return fail(false);
              checksum += static_cast<std::uint32_t>(line->columns()[0] + line->columns()[2] + line->columns()[4]);
            }
            checksum += o + static_cast<std::uint64_t>(get64(cust, 0));
            break;
          }
          break;
        }
        case kDelivery: {
          // Per district: the oldest undelivered order (the district's cursor), its new-order
          // row, order, lines and customer.
          for (std::uint64_t d = 1; d <= kDistricts; ++d) {
            Row* dist = find(key(kDistrict, op[1], d, 0));
            if (!lock(dist, LockMode::exclusive)) return fail(false);
            rows.push_back(dist);
            const auto o = static_cast<std::uint64_t>(dist->columns()[4]);
            Row* no = o < static_cast<std::uint64_t>(dist->columns()[3]) ? find(key(kNewOrder, op[1], d, o)) : nullptr;
            if (no && !lock(no, LockMode::exclusive)) return fail(false);
            if (no && (no->deleted() || no->columns()[1] != 1)) no = nullptr;
            rows.push_back(no);
            if (!no) continue;
            Row* order = find(key(kOrder, op[1], d, o));
            ISLANDS_CHECK(order != nullptr, "TPC-C order of a new order missing");
            if (!lock(order, LockMode::exclusive)) return fail(false);
            Row* cust = find(key(kCustomer, op[1], d, static_cast<std::uint64_t>(order->columns()[0])));
            ISLANDS_CHECK(cust != nullptr, "TPC-C customer of an order missing");
            if (!lock(cust, LockMode::exclusive)) return fail(false);
            rows.insert(rows.end(), {order, cust});
            for (std::int32_t ol = 1; ol <= order->columns()[3]; ++ol) {
              Row* line = find(key(kOrderLine, op[1], d, (o << 4) | static_cast<std::uint64_t>(ol)));
              ISLANDS_CHECK(line != nullptr, "TPC-C order line missing");
              if (!lock(line, LockMode::exclusive)) return fail(false);
              rows.push_back(line);
            }
          }
          break;
        }
        default: {  // kStockLevel: items of the district's last 20 orders with stock below threshold
          Row* dist = find(key(kDistrict, op[1], op[2], 0));
          if (!lock(dist, LockMode::shared)) return fail(false);
          const auto next = static_cast<std::uint64_t>(dist->columns()[3]);
          static thread_local std::vector<std::uint64_t> items_seen_;  // per worker
          items_seen_.clear();
          for (std::uint64_t o = next > 20 ? next - 20 : 1; o < next; ++o) {
            Row* order = find(key(kOrder, op[1], op[2], o));
            if (!order) continue;
            if (!lock(order, LockMode::shared)) return fail(false);
            if (order->deleted()) continue;
            for (std::int32_t ol = 1; ol <= order->columns()[3]; ++ol) {
              Row* line = find(key(kOrderLine, op[1], op[2], (o << 4) | static_cast<std::uint64_t>(ol)));
              ISLANDS_CHECK(line != nullptr, "TPC-C order line missing");
              if (!lock(line, LockMode::shared)) return fail(false);
              items_seen_.push_back(static_cast<std::uint64_t>(line->columns()[0]));
            }
          }
          std::sort(items_seen_.begin(), items_seen_.end());
          items_seen_.erase(std::unique(items_seen_.begin(), items_seen_.end()), items_seen_.end());
          std::uint64_t low = 0;
          for (std::uint64_t item : items_seen_) {
            Row* s = find(key(kStockTag, op[1], 0, item));
            ISLANDS_CHECK(s != nullptr, "TPC-C stock row missing");
            if (!lock(s, LockMode::shared)) return fail(false);
            if (static_cast<std::uint64_t>(s->columns()[0]) < op[3]) ++low;
          }
          checksum += low;
        }
      }
    }
    // Phase 2: change them.
    std::size_t r = 0;
    for (std::size_t at = 0; at < n; at += op_words(&words[at])) {
      const std::uint64_t* op = &words[at];
      const std::size_t site = op[1] / config_.warehouses_per_site - first_site_;
      switch (op[0]) {
        case kNewOrderHome: {
          Row* wh = rows[r++];
          Row* dist = rows[r++];
          Row* cust = rows[r++];
          save(ctx, dist, kDistrictColumns);
          const std::uint64_t o = static_cast<std::uint64_t>(dist->columns()[3]);
          dist->columns()[3] += 1;
          Row* order = insert(ctx, cc, orders_, site, key(kOrder, op[1], op[2], o));
          Row* no = order ? insert(ctx, cc, new_orders_, site, key(kNewOrder, op[1], op[2], o)) : nullptr;
          if (!no) return fail(false);  // a reader holds a row an aborted insert left: undo, retry
          order->columns()[0] = static_cast<std::int32_t>(op[3]);
          order->columns()[3] = static_cast<std::int32_t>(op[4]);
          order->columns()[4] = static_cast<std::int32_t>(op[5]);
          by_customer_.insert(customer_order_key(op[1], op[2], op[3], o), reinterpret_cast<std::uint64_t>(order));
          no->columns()[0] = static_cast<std::int32_t>(o);
          no->columns()[1] = 1;
          std::int64_t total = 0;
          for (std::uint64_t k = 0; k < op[4]; ++k) {
            const std::uint64_t* line = &op[6 + 3 * k];
            Row* ol = insert(ctx, cc, order_lines_, site, key(kOrderLine, op[1], op[2], (o << 4) | (k + 1)));
            if (!ol) return fail(false);
            const std::int64_t amount = static_cast<std::int64_t>(line[2]) * find(key(kItem, 0, 0, line[0]))->columns()[0];
            ol->columns()[0] = static_cast<std::int32_t>(line[0]);
            ol->columns()[1] = static_cast<std::int32_t>(line[1]);
            ol->columns()[2] = static_cast<std::int32_t>(line[2]);
            ol->columns()[3] = static_cast<std::int32_t>(amount);
            total += amount;
          }
          checksum += static_cast<std::uint64_t>(total) + static_cast<std::uint64_t>(wh->columns()[2]) +
                      static_cast<std::uint64_t>(cust->columns()[6]);
          break;
        }
        case kStock: {
          Row* s = rows[r++];
          save(ctx, s, kStockColumns);
          std::int32_t* c = s->columns();
          const auto qty = static_cast<std::int32_t>(op[3]);
          c[0] = c[0] >= qty + 10 ? c[0] - qty : c[0] - qty + 91;
          c[1] += qty;
          c[2] += 1;
          c[3] += static_cast<std::int32_t>(op[4]);
          break;
        }
        case kPaymentHome: {
          Row* wh = rows[r++];
          Row* dist = rows[r++];
          const auto amount = static_cast<std::int64_t>(op[3]);
          save(ctx, wh, kWarehouseColumns);
          save(ctx, dist, kDistrictColumns);
          set64(wh, 0, get64(wh, 0) + amount);
          set64(dist, 0, get64(dist, 0) + amount);
          Row* h = history_.allocate(site, 0);
          h->columns()[0] = static_cast<std::int32_t>(op[6]);  // 0 when chosen by name elsewhere
          h->columns()[1] = static_cast<std::int32_t>(op[5]);
          h->columns()[2] = static_cast<std::int32_t>(op[4]);
          h->columns()[3] = static_cast<std::int32_t>(op[2]);
          h->columns()[4] = static_cast<std::int32_t>(op[1]);
          set64(h, 5, amount);
          ctx.inserted(h);
          break;
        }
        case kOrderStatus:
        case kStockLevel:
          break;  // read only: done in phase 1
        case kDelivery: {
          for (std::uint64_t d = 1; d <= kDistricts; ++d) {
            Row* dist = rows[r++];
            Row* no = rows[r++];
            if (!no) continue;
            Row* order = rows[r++];
            Row* cust = rows[r++];
            save(ctx, dist, kDistrictColumns);
            save(ctx, no, kNewOrderColumns);
            save(ctx, order, kOrderColumns);
            save(ctx, cust, kCustomerColumns);
            dist->columns()[4] += 1;
            no->columns()[1] = 0;
            order->columns()[2] = static_cast<std::int32_t>(op[2]);
            std::int64_t total = 0;
            for (std::int32_t ol = 1; ol <= order->columns()[3]; ++ol) {
              Row* line = rows[r++];
              save(ctx, line, kOrderLineColumns);
              line->columns()[4] = 1;
              total += line->columns()[3];
            }
            set64(cust, 0, get64(cust, 0) + total);
            cust->columns()[5] += 1;
          }
          break;
        }
        default: {
          Row* cust = rows[r++];
          const auto amount = static_cast<std::int64_t>(op[5]);
          save(ctx, cust, kCustomerColumns);
          set64(cust, 0, get64(cust, 0) - amount);
          set64(cust, 2, get64(cust, 2) + amount);
          cust->columns()[4] += 1;
        }
      }
    }
    return TxnResult::commit();
  }

  //! Consistency figures over this instance's warehouses: the specification's conditions 1-4
  //! (clause 3.3.2) as counts of warehouses or districts that violate them, each warehouse's
  //! YTD against its history, the customers' balance plus YTD payment (0 when every payment
  //! moved money from one to the other), and each table's rows.
  CheckFigures check_figures() const {
    struct DistrictFacts {
      std::int64_t ytd = 0, next_o_id = 0, max_o = 0, max_no = 0, min_no = INT64_MAX, count_no = 0, ol_cnt = 0, ol_rows = 0;
    };
    std::unordered_map<std::uint64_t, DistrictFacts> facts;
    std::unordered_map<std::uint64_t, std::int64_t> w_ytd, w_history;
    std::int64_t customers = 0, balance_plus_ytd = 0, history_rows = 0, orders = 0, new_orders = 0, lines = 0;
    std::int64_t delivered = 0;
    const auto wd = [](std::uint64_t k) { return (k >> 32) & 0xffffffULL; };  // warehouse and district
    for (std::size_t s = 0; s < sites_; ++s) {
      warehouses_.for_each_row(s, [&](const Row& r) { w_ytd[(r.key >> 40) & 0xffff] = get64(&r, 0); });
      districts_.for_each_row(s, [&](const Row& r) {
        DistrictFacts& f = facts[wd(r.key)];
        f.ytd = get64(&r, 0);
        f.next_o_id = r.columns()[3];
      });
      customers_.for_each_row(s, [&](const Row& r) {
        ++customers;
        balance_plus_ytd += get64(&r, 0) + get64(&r, 2);
      });
      history_.for_each_row(s, [&](const Row& r) {
        if (r.deleted()) return;
        ++history_rows;
        w_history[static_cast<std::uint64_t>(r.columns()[4])] += get64(&r, 5);
      });
      orders_.for_each_row(s, [&](const Row& r) {
        if (r.deleted()) return;
        ++orders;
        DistrictFacts& f = facts[wd(r.key)];
        f.max_o = std::max<std::int64_t>(f.max_o, static_cast<std::int64_t>(r.key & 0xffffffffULL));
        f.ol_cnt += r.columns()[3];
      });
      new_orders_.for_each_row(s, [&](const Row& r) {
        if (r.deleted() || r.columns()[1] != 1) return;
        ++new_orders;
        DistrictFacts& f = facts[wd(r.key)];
        const auto o = static_cast<std::int64_t>(r.key & 0xffffffffULL);
        f.max_no = std::max(f.max_no, o);
        f.min_no = std::min(f.min_no, o);
        ++f.count_no;
      });
      order_lines_.for_each_row(s, [&](const Row& r) {
        if (r.deleted()) return;
        ++lines;
        if (r.columns()[4] != 0) delivered += r.columns()[3];
        ++facts[wd(r.key)].ol_rows;
      });
    }
    std::int64_t bad1 = 0, bad2 = 0, bad3 = 0, bad4 = 0, bad_history = 0;
    std::unordered_map<std::uint64_t, std::int64_t> d_ytd_sum;
    for (const auto& [k, f] : facts) {
      d_ytd_sum[k >> 8] += f.ytd;
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

 private:
  static constexpr std::uint64_t kCLastLoad = 157, kCLastRun = 223, kCId = 259, kOlIId = 7911;
  static constexpr std::uint64_t kMaxOrder = (1ULL << 27) - 1;  // orders per district the secondary key holds

  static Index make_index(std::size_t expected_keys) {
    if constexpr (std::is_same_v<Index, HashIndex>) {
      return HashIndex(expected_keys, true);
    } else {
      (void)expected_keys;
      return BTreeIndex(true);
    }
  }

  static std::uint64_t key(std::uint64_t tag, std::uint64_t w, std::uint64_t d, std::uint64_t x) {
    return (tag << 56) | (w << 40) | (d << 32) | x;
  }
  static std::size_t op_words(const std::uint64_t* op) {
    switch (op[0]) {
      case kNewOrderHome: return 6 + 3 * op[4];
      case kStock: return 5;
      case kPaymentHome: return 7;
      case kPaymentCustomer: return 6;
      case kOrderStatus: return 5;
      case kDelivery: return 3;
      default: return 4;  // kStockLevel
    }
  }
  // NURand(A, x, y) of the specification (clause 2.1.6) with run constant c.
  static std::uint64_t nurand(Random& rng, std::uint64_t a, std::uint64_t x, std::uint64_t y, std::uint64_t c) {
    return (((rng.below(a + 1) | (x + rng.below(y - x + 1))) + c) % (y - x + 1)) + x;
  }
  std::uint64_t other_warehouse(Random& rng, std::uint64_t w) const {
    std::uint64_t other = rng.below(total_warehouses_ - 1);
    return other >= w ? other + 1 : other;
  }
  static bool has_item(const std::vector<std::uint64_t>& words, std::uint64_t k, std::uint64_t item, std::uint64_t supply) {
    for (std::uint64_t j = 0; j < k; ++j) {
      if (words[6 + 3 * j] == item && words[7 + 3 * j] == supply) return true;
    }
    return false;
  }
  std::size_t last_slot(std::uint64_t w, std::uint64_t d, std::uint64_t last) const {
    const std::uint64_t local = w - first_site_ * config_.warehouses_per_site;
    return (local * kDistricts + (d - 1)) * kLastNames + last;
  }
  // The customer of (w, d) with this last name at position ceil(n / 2) by first name (clause
  // 2.5.2.2); the lowest-numbered customer of another last name when none has it.
  Row* by_last_name(std::uint64_t w, std::uint64_t d, std::uint64_t last) const {
    for (std::uint64_t probe = 0; probe < kLastNames; ++probe) {
      const auto& list = by_last_[last_slot(w, d, (last + probe) % kLastNames)];
      if (!list.empty()) return list[(list.size() + 1) / 2 - 1];
    }
    return nullptr;
  }

  Row* add(Table& table, std::size_t site, std::uint64_t k) {
    Row* row = table.allocate(site, k);
    const bool fresh = index_.insert(k, reinterpret_cast<std::uint64_t>(row));
    ISLANDS_CHECK(fresh, "TPC-C key loaded twice");
    return row;
  }
  // A new row under key k, locked exclusively until the end and taken back on abort; a row an
  // aborted insert left is reused. nullptr when a reader still holds that row (2PL only: under
  // the district's lock nothing else inserts this key).
  template <class CC>
  Row* insert(TxnContext& ctx, const CC& cc, Table& table, std::size_t site, std::uint64_t k) {
    Row* row = find(k);
    if (row) {
      AbortReason reason;
      if (!cc.lock(row, LockMode::exclusive, ctx, reason)) {
        ISLANDS_CHECK(CC::kLocks, "a single-threaded instance found a reused row locked");
        return nullptr;
      }
      ISLANDS_CHECK(row->deleted(), "TPC-C inserts a key that exists");
      std::memset(row->columns(), 0, table.columns() * sizeof(std::int32_t));
      row->key = k;
    } else {
      row = table.allocate(site, k);
      AbortReason reason;
      const bool locked = cc.lock(row, LockMode::exclusive, ctx, reason);  // nobody can see it yet
      ISLANDS_CHECK(locked, "a fresh row was locked");
      const bool fresh = index_.insert(k, reinterpret_cast<std::uint64_t>(row));
      ISLANDS_CHECK(fresh, "TPC-C inserts a key that exists");
    }
    ctx.inserted(row);
    return row;
  }
  static std::uint64_t customer_order_key(std::uint64_t w, std::uint64_t d, std::uint64_t c, std::uint64_t o) {
    return (w << 48) | (d << 44) | (c << 27) | o;
  }
  Row* find(std::uint64_t k) const {
    std::uint64_t value = 0;
    return index_.lookup(k, value) ? reinterpret_cast<Row*>(value) : nullptr;
  }
  static void save(TxnContext& ctx, Row* row, std::uint32_t columns) { ctx.save_before_image(row, columns); }
  std::int64_t rows_of(const Table& table) const {
    std::int64_t n = 0;
    for (std::size_t s = 0; s < table.sites(); ++s) n += static_cast<std::int64_t>(table.rows(s));
    return n;
  }
  static std::int64_t get64(const Row* row, std::size_t column) {
    std::int64_t v;
    std::memcpy(&v, row->columns() + column, sizeof v);
    return v;
  }
  static void set64(Row* row, std::size_t column, std::int64_t v) { std::memcpy(row->columns() + column, &v, sizeof v); }

  TpccConfig config_;
  EngineConfig engine_;
  std::size_t sites_;
  std::size_t first_site_;
  std::uint64_t total_warehouses_;
  std::array<std::uint32_t, kTpccTxnTypes> weights_;
  Table warehouses_, districts_, customers_, history_, orders_, new_orders_, order_lines_, items_, stock_;
  Index index_;
  BTreeIndex by_customer_;                  // ordered secondary index: (w, d, customer, order) -> order
  std::vector<std::vector<Row*>> by_last_;  // secondary index: (warehouse, district, last name) -> customers
};

}  // namespace islands
