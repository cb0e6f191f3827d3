#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <ctime>
#include <stdexcept>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "islands/exec/routing_unit.hpp"
#include "islands/cc/concurrency_control.hpp"
#include "islands/common/check.hpp"
#include "islands/common/config_error.hpp"
#include "islands/common/random.hpp"
#include "islands/settings/engine_config.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/index/btree_index.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/index/rooted_index.hpp"
#include "islands/perf/component_clock.hpp"
#include "islands/storage/table.hpp"
#include "islands/txn/txn_context.hpp"
#include "islands/exec/action_io.hpp"
#include "islands/settings/tpcc_config.hpp"
#include "islands/workload/tpcc_fit.hpp"
#include "islands/workload/tpcc_rendezvous.hpp"
#include "islands/workload/tpcc_schema.hpp"
#include "islands/workload/tpcc_text.hpp"
#include "islands/exec/txn_part.hpp"
#include "islands/exec/run_config.hpp"
#include "islands/exec/workload_interface.hpp"

namespace islands {

//! TPC-C's data and its five transactions (see TpccConfig). One primary index holds every keyed
//! table (table tag in the top byte, then warehouse, district and the table's own id); Customer has
//! a secondary index by (warehouse, district, last name) whose lists are sorted by first name;
//! Order has an ordered secondary index by (warehouse, district, customer, order) whose range reads
//! find a customer's latest order. Delivery takes each district's oldest new order from a cursor in
//! the district row and deletes it (from the index and the table, whose memory a later insert
//! reuses). Payment's History row is written at the customer's site, which knows the customer
//! a by-name payment chose. Money is in cents. TpccConfig::layout picks the rows: "spec" (every
//! column at its width, and every step of the transactions that reads or writes them) or
//! "narrow" (the numeric columns only). The tables' memory is bounded by tpcc.memory_budget. The row layouts are in
//! tpcc_schema.hpp, the loader in tpcc_loader.hpp, the procedures in tpcc_procedures.hpp and the
//! consistency checks in tpcc_checks.hpp, the log's redo in tpcc_redo.hpp. A transaction is a list of operations, each executed by
//! the site of its warehouse; every operation of a part finds and locks its rows and checks its
//! conditions before any operation changes anything, so a user rollback (NewOrder's unused item)
//! leaves nothing to undo. Inserted rows stay in the index; an aborted insert leaves its row marked
//! deleted, and a retry takes it up again.
//! Index roots: under PLP with per-unit roots (engine.plp_index) the primary index and the
//! by-customer B+tree have one latch-free root per site (TPC-C's one routing unit per site,
//! where `locate` routes every operation on its warehouses), plus one primary root for Item,
//! which only the load writes and every worker then reads (index/rooted_index.hpp). An
//! operation reads only its own unit's root: where it wants text of another unit's row (a
//! remote supplier's stock, a remote Payment's warehouse and district) it recomputes it from
//! the key (find_owned), as a shared-nothing instance does for rows another instance holds.
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
    validate_tpcc_fit(config, total_sites);
    if (!run.engine.latching && run.driver.cpus.size() > 1 && run.engine.cc != CcKind::table_2pl) {
      throw ConfigError("engine.latching", std::string("tpcc inserts index keys while it runs, so an instance of ") +
                                        std::to_string(run.driver.cpus.size()) +
                                        " workers needs index latching (or table_2pl, whose locks exclude them)");
    }
  }
  //! Its writes are logged (redo captured, recovery and checkpoints supported; tpcc_redo.hpp).
  static constexpr bool kLogs = true;

  static constexpr std::uint32_t kDistricts = tpcc::kDistricts;  //!< per warehouse
  static constexpr std::uint32_t kLastNames = tpcc::kLastNames;  //!< distinct customer last names

  enum TxnType : std::uint64_t { kNewOrderTxn = 0, kPaymentTxn = 1, kOrderStatusTxn = 2, kDeliveryTxn = 3, kStockLevelTxn = 4 };
  //! Operations: [kNewOrderHome, w, d, c, n, all_local, n x (item, supply_w, qty)],
  //! [kStock, w, item, qty, remote, d] (d: the order's district), [kNewOrderLines, w, d, n, n x
  //! (item, supply_w)] (spec layout: the lines' stock text), [kPaymentHome, w, d, amount],
  //! [kPaymentCustomer, c_w, c_d, by_name, c_id or last, amount, w, d], [kOrderStatus, w, d, by_name,
  //! c_id or last], [kDelivery, w, carrier], [kStockLevel, w, d, threshold].
  enum Op : std::uint64_t {
    kNewOrderHome = 1, kStock = 2, kPaymentHome = 3, kPaymentCustomer = 4, kOrderStatus = 5, kDelivery = 6, kStockLevel = 7,
    kNewOrderLines = 8
  };
  enum Tag : std::uint64_t {
    kWarehouse = tpcc::kWarehouseTag, kDistrict = tpcc::kDistrictTag, kCustomer = tpcc::kCustomerTag,
    kOrder = tpcc::kOrderTag, kNewOrder = tpcc::kNewOrderTag, kOrderLine = tpcc::kOrderLineTag, kItem = tpcc::kItemTag,
    kStockTag = tpcc::kStockTag
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
        spec_(config.spec_layout()),
        warehouses_(sites, width<Warehouse>()),
        districts_(sites, width<District>()),
        customers_(sites, width<Customer>()),
        history_(sites, width<History>()),
        orders_(sites, width<Order>()),
        new_orders_(sites, width<NewOrder>()),
        order_lines_(sites, width<OrderLine>()),
        items_(1, width<Item>()),
        stock_(sites, width<Stock>()),
        index_(per_unit_index_roots(engine) ? sites + 1 : 1,
               config.items + sites * std::size_t{config.warehouses_per_site} *
                                  (config.items + 14 * kDistricts * std::size_t{config.customers_per_district}),
               Roots{config.warehouses_per_site, first_site, sites}),
        by_customer_(per_unit_index_roots(engine) ? sites : 1, 0, CustomerRoots{config.warehouses_per_site, first_site}),
        by_last_(sites * std::size_t{config.warehouses_per_site} * kDistricts * kLastNames) {
    validate_tpcc_fit(config_, total_sites ? total_sites : sites);
    // This instance's share of the deployment's budget: its sites of the total.
    const double share = static_cast<double>(sites) / static_cast<double>(total_sites ? total_sites : sites);
    budget_bytes_ =
        static_cast<std::uint64_t>(config_.memory_budget * share * static_cast<double>(available_memory_bytes()));
  }

  //! Loads local site `site` (its owner thread: first touch): its warehouses with their
  //! districts, customers (and their last-name lists), history, orders, new orders, order
  //! lines and stock; site 0 also loads this instance's copy of Item (tpcc_loader.hpp).
  void load_site(std::size_t site);

  //! After every site is loaded: switch index latching to the run's setting.
  //! (Off in per-unit roots: only a unit's owner touches its root, see index/rooted_index.hpp.)
  void finish_load(bool single_threaded) {
    const bool latched = engine_.latching && !single_threaded && !per_unit_index_roots(engine_);
    index_.set_latching(latched);
    by_customer_.set_latching(latched);
  }

  //! The primary root of a key: its warehouse's site (one routing unit per site); Item's keys
  //! in a root of their own after the sites' (`items_root`), read-only once loaded.
  struct Roots {
    std::uint64_t warehouses_per_site;  //!< warehouses per site
    std::uint64_t first_site;           //!< this instance's first site
    std::uint64_t items_root;           //!< Item's root: the number of sites
    //! The root number of key.
    std::size_t operator()(std::uint64_t k) const {
      if ((k >> 56) == tpcc::kItemTag) return items_root;
      return tpcc::key_warehouse(k) / warehouses_per_site - first_site;
    }
  };
  //! The by-customer B+tree's root of a key (OrderByCustomer::key): its warehouse's site.
  struct CustomerRoots {
    std::uint64_t warehouses_per_site;  //!< warehouses per site
    std::uint64_t first_site;           //!< this instance's first site
    //! The root number of key.
    std::size_t operator()(std::uint64_t k) const { return (k >> 48) / warehouses_per_site - first_site; }
  };

  //! Why the run must end before its time (empty: it need not): the tables outgrew
  //! tpcc.memory_budget. The instance polls it and ends the run cleanly, keeping what it measured.
  std::string stop_reason() const {
    return budget_state_.load(std::memory_order_acquire) == kOverBudget ? over_budget_reason_ : std::string();
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
      append_new_order_steps(txn.words);
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
      txn.words = {kPaymentHome, w, d, amount, kPaymentCustomer, c_w, c_d, by_name ? 1u : 0u, who, amount, w, d};
    }
  }


  //! NewOrder's steps after its home words [kNewOrderHome, w, d, c, n, all_local, n x (item,
  //! supply_w, qty)]: each line's stock update (not the unused item's), then (spec layout) the
  //! lines' OL_DIST_INFO and brand from their stock, last, after the inserts.
  void append_new_order_steps(std::vector<std::uint64_t>& words) const {
    const std::uint64_t w = words[1], d = words[2], n = words[4];
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::uint64_t* line = &words[6 + 3 * k];
      if (line[0] > config_.items) continue;  // the unused item: no stock to update
      words.insert(words.end(), {kStock, line[1], line[0], line[2], line[1] != w ? 1u : 0u, d});
    }
    if (spec_) {
      words.insert(words.end(), {kNewOrderLines, w, d, n});
      for (std::uint64_t k = 0; k < n; ++k) words.insert(words.end(), {words[6 + 3 * k], words[7 + 3 * k]});
    }
  }

  //! Splits a transaction into one part per instance; a part goes to the site of its first
  //! operation's warehouse.
  void split(const Txn& txn, const std::vector<std::uint32_t>& instance_of_site,
             std::vector<TxnPart>& parts) const {
    split_operations(txn.words, instance_of_site, parts, op_at(txn));
  }
  //! Command logging (log.content = command; exec/workload_interface.hpp, ReplaysCommands):
  //! how many leading words of a local transaction's `n` its command keeps, 0 when it cannot be
  //! replayed. NewOrder keeps its home words (expand_command rebuilds its stock and lines
  //! steps), Payment all of them; both take their dates from the context's wall_seconds.
  //! Delivery logs its rows: it takes each district's oldest new order, a read of rows NewOrder
  //! inserts, which row locks do not order in the log.
  std::size_t command_words(const std::uint64_t* words, std::size_t n) const {
    if (n >= 6 && words[0] == kNewOrderHome) return 6 + 3 * words[4];
    return n > 0 && words[0] == kPaymentHome ? n : 0;
  }
  //! A command's words made whole again, as generate() made them; false when they are not a
  //! command_words() prefix.
  bool expand_command(std::vector<std::uint64_t>& words) const {
    if (words.empty() || words[0] != kNewOrderHome) return !words.empty() && words[0] == kPaymentHome;
    if (words.size() < 6 || words[4] > 15 || words.size() != 6 + 3 * words[4]) return false;
    append_new_order_steps(words);
    return true;
  }
  //! Whether every operation of `txn` is at this instance's sites (the worker runs it uncut).
  bool local_txn(const Txn& txn) const { return operations_within(txn.words, first_site_, sites_, op_at(txn)); }
  //! {words, global site} of the operation at word `at` of txn (split_operations' op_at).
  auto op_at(const Txn& txn) const {
    return [this, &txn](std::size_t at) {
      return std::pair<std::size_t, std::uint64_t>{op_words(&txn.words[at]), txn.words[at + 1] / config_.warehouses_per_site};
    };
  }
  //! The operation starting at word `at` of the `n` words of a transaction (or of an action
  //! cut from one): {its words, the routing unit holding its data} (exec/routing_unit.hpp;
  //! PLP routes by it).
  //! (A whole site is one unit: its warehouses' inserts share the site's tables.)
  std::pair<std::size_t, std::uint64_t> locate(const std::uint64_t* words, std::size_t, std::size_t at) const {
    return {op_words(&words[at]), words[at + 1] / config_.warehouses_per_site * kUnitsPerSite};
  }

  //! Whether a part writes (OrderStatus and StockLevel only read).
  bool part_updates(const std::uint64_t* words, std::size_t) const {
    return words[0] != kOrderStatus && words[0] != kStockLevel;
  }
  std::size_t max_part_words() const { return 6 + 15 * 3 + 15 * 6 + 4 + 15 * 2; }  //!< sizes fragments
  //! Whether the operation at word `at` consumes what others of its transaction produce (PLP
  //! stages it after them where they are on other partitions, exec/plp/plp_stages.hpp): NewOrder's
  //! lines step (spec layout) takes each line's S_DIST_xx and S_DATA test from the stock steps
  //! and the order's number from the home step (tpcc_rendezvous.hpp), while the home step's
  //! inserts run beside the stock steps (002 Fig 7). The narrow layout has no such step.
  bool consumes(const std::uint64_t* words, std::size_t, std::size_t at) const { return words[at] == kNewOrderLines; }
  //! Rows a committed transaction updated or inserted (statistics).
  std::size_t row_updates(const Txn& txn) const {
    switch (txn.type) {
      case kNewOrderTxn: return 3 + 2 * txn.words[4];
      case kPaymentTxn: return 4;
      case kDeliveryTxn: return 10 * 4;  // about: district, new order, order, customer per district
      default: return 0;
    }
  }
  std::size_t max_columns() const { return customers_.columns(); }  //!< widest row (Customer)
  //! Delivery's deleted NEW-ORDER rows wait for `gate` before they are reused (the only rows
  //! transactions delete; recovery and checkpoints release others with no transaction running).
  void reclaim_with(EpochGate& gate) { new_orders_.set_reclaim_gate(&gate); }
  std::size_t type_of(const Txn& txn) const { return txn.type; }  //!< index into kTpccTxnNames

  //! Executes the operations words[0, n) (all of warehouses this instance holds) under `cc`.
  //! `io` (PLP stages, exec/action_io.hpp): NewOrder's stock and home steps append their
  //! records to io->out, and its lines step takes them from io->in; nullptr, as everywhere
  //! else: the lines step reads the stock rows (or recomputes their text) itself.
  template <class CC>
  TxnResult execute_part(const std::uint64_t* words, std::size_t n, std::vector<Row*>& rows, TxnContext& ctx,
                         const CC& cc, std::uint64_t& checksum, ActionIo* io = nullptr) {
    ComponentScope execution(ctx.clock(), Component::execution);
    Part<CC> part{*this, ctx, cc, rows, checksum};
    part.io = io;
    const auto fail = [&](bool user) {
      if constexpr (CC::kLocks) ctx.abort();
      return user ? TxnResult::rollback() : TxnResult::abort(part.reason);
    };
    if (!engine_.latching) {
      // Latch-free (table_2pl only, see validate_settings): every table shares the primary
      // index, so one lock (table 0) covers them all, taken before the first probe.
      part.one_lock = true;
      const LockMode mode = part_updates(words, n) ? LockMode::exclusive : LockMode::shared;
      if (!cc.lock_table(0, mode, ctx, part.reason)) return fail(false);
    }
    prefetch_part(words, n, part.memo);
    // Phase 1: find and lock every row, check every condition.
    rows.clear();
    if (words[0] == kNewOrderHome || words[0] == kPaymentHome) check_memory_budget();  // what grows
    for (std::size_t at = 0; at < n; at += op_words(&words[at])) {
      const std::uint64_t* op = &words[at];
      Step step;
      switch (op[0]) {
        case kNewOrderHome: step = new_order_home_lock(op, part); break;
        case kStock: step = new_order_stock_lock(op, part); break;
        case kNewOrderLines: step = Step::next; break;  // its rows: the home step's inserts
        case kPaymentHome: step = payment_home_lock(op, part); break;
        case kPaymentCustomer: step = payment_customer_lock(op, part); break;
        case kOrderStatus: step = order_status_read(op, part); break;
        case kDelivery: step = delivery_lock(op, part); break;
        default: step = stock_level_read(op, part);  // kStockLevel
      }
      if (step != Step::next) return fail(step == Step::rollback);
      // Read committed: each statement's read locks go when it ends (NewOrder kept what it
      // read of the warehouse and the customer; the other updaters read only what they write).
      part.end_statement();
    }
    // Phase 2: change them.
    for (std::size_t at = 0; at < n; at += op_words(&words[at])) {
      const std::uint64_t* op = &words[at];
      switch (op[0]) {
        case kNewOrderHome:
          if (!new_order_home_apply(op, part)) return fail(false);
          break;
        case kStock: new_order_stock_apply(op, part); break;
        case kNewOrderLines: new_order_lines_apply(op, part); break;
        case kPaymentHome: payment_home_apply(op, part); break;
        case kOrderStatus:
        case kStockLevel:
          break;  // read only: done in phase 1
        case kDelivery: delivery_apply(op, part); break;
        default: payment_customer_apply(op, part);  // kPaymentCustomer
      }
    }
    return TxnResult::commit();
  }

  //! Calls f(row, columns) for every live row of every table of this instance, Item included
  //! (checkpoints; tpcc_redo.hpp).
  template <class F>
  void for_each_row(F&& f) const;
  //! Recovery: overwrites a row (its first `columns` columns: a step's numeric columns) or
  //! inserts an Order (and its by-customer index entry), NewOrder, OrderLine or History row;
  //! false for a row this instance cannot hold (tpcc_redo.hpp).
  bool redo(std::uint64_t key, const std::int32_t* image, std::size_t columns);
  //! Recovery: Delivery's delete of a NewOrder row (index and table); false when there is none.
  bool redo_delete(std::uint64_t key);
  //! Recovery from a checkpoint: drops the loaded History, Order (with the by-customer index),
  //! NewOrder and OrderLine rows, which the snapshot holds as they were (tpcc_redo.hpp).
  void clear_for_snapshot();

  //! Consistency figures over this instance's warehouses (tpcc_checks.hpp): the
  //! specification's twelve conditions (clause 3.3.2) and the stock's counters against the
  //! order lines, as counts of the warehouses, districts, orders, order lines or customers that
  //! violate them where an instance holds every row a condition relates, and as fingerprints
  //! (sums of per-row weights modulo a prime, additive over instances) where the rows are on
  //! different instances (a remote Payment's History, a remote item's Stock); each table's
  //! rows, and the bytes the tables and indexes hold.
  CheckFigures check_figures() const;
  //! Breaks one row for a test of the conditions: `what` names a table and column
  //! ("stock.ytd", ...); false when this instance has no such row (tpcc_checks.hpp).
  bool corrupt_for_test(const std::string& what);
  //! Bytes the tables and the indexes hold now (estimated for the indexes).
  std::uint64_t memory_bytes() const;
  //! Bytes the rows in use take (row stride times rows, every table).
  std::uint64_t row_bytes() const;
  //! The growth figures (bytes per transaction of growth): rows' bytes, tables' and indexes'
  //! bytes, and the committed transactions that add rows (orders plus History rows).
  static std::vector<std::string> figures_at_start() { return {"row_bytes", "table_bytes", "growing_txns"}; }
  //! The names of the conditions verify checks (tpcc_checks.hpp).
  static std::vector<std::string> conditions();
  //! The conditions over the deployment (tpcc_checks.hpp).
  static std::vector<std::string> verify(const CheckMap& checks);
  //! Its nine tables as the settings size them (tpcc_fit.cpp).
  static std::vector<TableLoad> load_size(const Config& config) { return tpcc_load_size(config); }
  //! Whether its mix can write (taken as yes: only a mix of Order-Status and Stock-Level does not).
  static bool writes(const Config&) { return true; }
  //! Its load grows with the warehouses of a site.
  static std::string size_setting() { return "tpcc.warehouses_per_site"; }
  //! Each table's rows at this instance (as load_size names them).
  std::vector<TableRows> table_rows() const {
    return {table_rows_of("warehouse", warehouses_), table_rows_of("district", districts_), table_rows_of("customer", customers_),
            table_rows_of("history", history_),      table_rows_of("orders", orders_),       table_rows_of("new_order", new_orders_),
            table_rows_of("order_line", order_lines_), table_rows_of("item", items_),        table_rows_of("stock", stock_)};
  }

 private:
  using Warehouse = tpcc::Warehouse;
  using District = tpcc::District;
  using Customer = tpcc::Customer;
  using History = tpcc::History;
  using Order = tpcc::Order;
  using NewOrder = tpcc::NewOrder;
  using OrderLine = tpcc::OrderLine;
  using Item = tpcc::Item;
  using Stock = tpcc::Stock;
  using OrderByCustomer = tpcc::OrderByCustomer;

  // The rows prefetch_part found, by key: Warehouse, District, Customer, Item and Stock rows,
  // which no transaction inserts or deletes, so a row found for a key at the start of a
  // transaction is still that key's row at its end. A direct-mapped table of 64 entries (a key
  // that collides is simply looked up again; 0 is no key: every key has its table's tag on top).
  struct RowMemo {
    static constexpr unsigned kBits = 6;
    std::uint64_t keys[1u << kBits]{};
    Row* rows[1u << kBits]{};
    static std::size_t slot(std::uint64_t k) { return static_cast<std::size_t>((k * 0x9e3779b97f4a7c15ULL) >> (64 - kBits)); }
    void put(std::uint64_t k, Row* row) {
      keys[slot(k)] = k;
      rows[slot(k)] = row;
    }
    // The row put for k, or nullptr.
    Row* get(std::uint64_t k) const { return keys[slot(k)] == k ? rows[slot(k)] : nullptr; }
  };

  // What one execute_part call's procedures share: the context, the scheme, the rows phase 1
  // found (phase 2 takes them back in the same order), the checksum and the last lock failure.
  template <class CC>
  struct Part {
    const TpccWorkload& workload;
    TxnContext& ctx;
    const CC& cc;
    std::vector<Row*>& rows;
    std::uint64_t& checksum;
    AbortReason reason = AbortReason::lock_conflict;
    std::size_t next_row = 0;
    bool one_lock = false;  // latch-free: table 0 holds every table (table_2pl)
    // NewOrder's reads of rows it does not lock to the end (read committed): the warehouse's
    // tax, the customer's discount and (spec layout) the checksum of its name and credit.
    std::int32_t w_tax = 0, c_discount = 0;
    std::uint64_t c_text = 0;
    ActionIo* io = nullptr;  // PLP stages: what the stock and home steps produce and the lines step consumes
    // NewOrder's home step for its lines step in the same part: the order's number, its lines'
    // rows and which items' I_DATA hold "ORIGINAL" (bit k: line k).
    std::uint64_t order = 0, item_original = 0;
    std::array<Row*, 15> lines{};
    RowMemo memo{};  // what prefetch_part found

    // The row of key k (of a table without inserts or deletes: see RowMemo), as find.
    Row* find(std::uint64_t k) const {
      Row* row = memo.get(k);
      return row ? row : workload.find(k);
    }
    // As the workload's find_owned, through the memo.
    const Row* find_owned(std::uint64_t k, std::uint64_t own_w) const {
      if (!workload.owned(k, own_w)) return nullptr;
      return find(k);
    }

    // The image of `row` to read or write (cc.open: the row itself once locked, a private copy
    // under occ), nullptr on conflict (`reason` says why). table: the row's table tag
    // (table_2pl locks it, occ copies its width), from its key unless given: a row that may be
    // one an aborted insert left (orders, new orders, order lines) has lost its key.
    Row* open(Row* row, LockMode mode, std::uint64_t table = 0) {
      if (table == 0) table = row->key >> 56;
      return cc.open(row, mode, ctx, reason, one_lock ? 0 : static_cast<std::uint32_t>(table),
                     workload.columns_of(table));
    }
    // Read committed: a statement ended, its read locks go; but latch-free, table 0 guards
    // the index the next statement probes before it locks, so it stays to the end.
    void end_statement() {
      if (!one_lock) cc.end_statement(ctx);
    }
    // table_2pl: table `tag` exclusively (before phase 2 inserts into it); others: nothing.
    bool lock_table(std::uint64_t tag) {
      return one_lock || cc.lock_table(static_cast<std::uint32_t>(tag), LockMode::exclusive, ctx, reason);
    }
    Row* take() { return rows[next_row++]; }  // the next row phase 1 found
  };
  // How a phase-1 step ends: go on, abort (a lock failed; Part::reason says why) or roll back.
  enum class Step { next, abort, rollback };

  // The loader's parts (tpcc_loader.hpp): a district's customers and history, its orders.
  // rng draws the numbers (alike in both layouts), text the spec layout's strings.
  void load_customers(std::size_t site, std::uint64_t w, std::uint64_t d, Random& rng, Random& text,
                      std::int32_t loaded_at);
  void load_orders(std::size_t site, std::uint64_t w, std::uint64_t d, Random& rng, Random& text,
                   std::int32_t loaded_at);

  // The procedures (tpcc_procedures.hpp), one operation each. *_lock and *_read find and lock
  // their rows and check their conditions (phase 1); *_apply change them (phase 2).
  template <class CC> Step new_order_home_lock(const std::uint64_t* op, Part<CC>& part);
  template <class CC> Step new_order_stock_lock(const std::uint64_t* op, Part<CC>& part);
  template <class CC> bool new_order_home_apply(const std::uint64_t* op, Part<CC>& part);
  template <class CC> void new_order_stock_apply(const std::uint64_t* op, Part<CC>& part);
  template <class CC> void new_order_lines_apply(const std::uint64_t* op, Part<CC>& part);
  const std::uint64_t* stock_line_given(const std::uint64_t* line, std::uint64_t d, ActionIo& io) const;
  template <class CC> Step payment_home_lock(const std::uint64_t* op, Part<CC>& part);
  template <class CC> Step payment_customer_lock(const std::uint64_t* op, Part<CC>& part);
  template <class CC> void payment_home_apply(const std::uint64_t* op, Part<CC>& part);
  template <class CC> void payment_customer_apply(const std::uint64_t* op, Part<CC>& part);
  template <class CC> Step order_status_read(const std::uint64_t* op, Part<CC>& part);
  template <class CC> Step delivery_lock(const std::uint64_t* op, Part<CC>& part);
  template <class CC> void delivery_apply(const std::uint64_t* op, Part<CC>& part);
  template <class CC> Step stock_level_read(const std::uint64_t* op, Part<CC>& part);

  static constexpr std::uint64_t kCLastLoad = 157, kCLastRun = 223, kCId = 259, kOlIId = 7911;

  // Index bytes per key the memory figures count (see memory_bytes in tpcc_checks.hpp).
  static constexpr std::uint64_t kIndexBytesPerKey = tpcc::kIndexBytesPerKey, kOrderIndexBytesPerKey = 48;

  // Payload columns of table T in this run's layout.
  template <class T>
  std::uint32_t width() const { return spec_ ? T::kSpecColumns : T::kColumns; }
  // Seconds since the epoch, as the date columns hold them (0 is null).
  static std::int32_t now() { return static_cast<std::int32_t>(std::time(nullptr)); }
  // The local site of warehouse w.
  std::size_t site_of(std::uint64_t w) const { return w / config_.warehouses_per_site - first_site_; }
  // Asks the instance to end the run (stop_reason) once the tables outgrow tpcc.memory_budget
  // (NewOrder and Payment are what grow them); the transaction itself goes on.
  void check_memory_budget() const {
    static thread_local std::uint32_t calls = 0;  // every 64th NewOrder or Payment of a worker
    if (budget_bytes_ == 0 || (++calls & 63) != 0 || budget_state_.load(std::memory_order_relaxed) != kWithinBudget) return;
    const std::uint64_t used = memory_bytes();
    if (used <= budget_bytes_) return;
    int expected = kWithinBudget;
    if (!budget_state_.compare_exchange_strong(expected, kWritingReason)) return;  // another worker says it
    over_budget_reason_ = "tpcc: the tables and indexes reached " + std::to_string(used >> 20) + " MiB of " +
                          std::to_string(budget_bytes_ >> 20) +
                          " MiB, this instance's memory budget (tpcc.memory_budget " +
                          std::to_string(config_.memory_budget) +
                          " of the memory available at load, its sites' share): the run stopped early, before "
                          "memory ran out; run it shorter, with fewer workers, or raise tpcc.memory_budget";
    budget_state_.store(kOverBudget, std::memory_order_release);
  }
  // Delivery's delete of a NEW-ORDER row, at commit (TxnContext::deleting).
  static void erase_key(void* self, std::uint64_t key) { static_cast<TpccWorkload*>(self)->index_.erase(key); }
  static void recycle_new_order(void* self, Row* row, std::uint64_t key) {
    auto* w = static_cast<TpccWorkload*>(self);
    w->new_orders_.release(w->site_of(tpcc::key_warehouse(key)), row);
  }

  static std::size_t op_words(const std::uint64_t* op) {
    switch (op[0]) {
      case kNewOrderHome: return 6 + 3 * op[4];
      case kStock: return 6;
      case kNewOrderLines: return 4 + 2 * op[3];
      case kPaymentHome: return 4;
      case kPaymentCustomer: return 8;
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
  // Under occ another NewOrder of the district may have taken the same number since this one
  // read the district: the key exists or is held, and the attempt aborts (`reason`).
  template <class CC>
  Row* insert(TxnContext& ctx, const CC& cc, AbortReason& reason, Table& table, std::size_t site, std::uint64_t k) {
    Row* row = find(k);
    if (row) {
      if (!cc.insert(row, ctx, reason, table_lock_of(k))) {
        ISLANDS_CHECK(CC::kLocks, "a single-threaded instance found a reused row locked");
        return nullptr;
      }
      if (!CC::kInPlace && !row->deleted()) {
        reason = AbortReason::occ_validation;  // its district changed: validation would fail
        return nullptr;
      }
      ISLANDS_CHECK(row->deleted(), "TPC-C inserts a key that exists");
      std::memset(row->columns(), 0, table.columns() * sizeof(std::int32_t));  // this layout's width
      row->key = k;
    } else {
      row = table.allocate(site, k);
      const bool locked = cc.insert(row, ctx, reason, table_lock_of(k));  // nobody can see it yet
      ISLANDS_CHECK(locked, "a fresh row was locked");
      if (!index_.insert(k, reinterpret_cast<std::uint64_t>(row))) {
        // occ only: another NewOrder of the district inserted the key first (see above).
        ISLANDS_CHECK(!CC::kInPlace, "TPC-C inserts a key that exists");
        ctx.inserted(row);  // rolled back with the attempt
        reason = AbortReason::occ_validation;
        return nullptr;
      }
    }
    ctx.inserted(row);
    return row;
  }
  // The table lock (table_2pl) of key k: its tag, or 0 for every table when latch-free.
  std::uint32_t table_lock_of(std::uint64_t k) const {
    return engine_.latching ? static_cast<std::uint32_t>(k >> 56) : 0;
  }
  Row* find(std::uint64_t k) const {
    std::uint64_t value = 0;
    return index_.lookup(k, value) ? reinterpret_cast<Row*>(value) : nullptr;
  }
  // The row of key k for an operation of warehouse `own_w`, only where it is in that
  // operation's own root: with per-unit roots another unit's root belongs to its owner, so a
  // row there is not looked up (nullptr, as for a row another instance holds; the caller
  // recomputes the text it wanted, which never changes). One root: find(k).
  const Row* find_owned(std::uint64_t k, std::uint64_t own_w) const { return owned(k, own_w) ? find(k) : nullptr; }
  // Whether key k is in the root of warehouse own_w's operations (see find_owned).
  bool owned(std::uint64_t k, std::uint64_t own_w) const {
    return index_.roots() == 1 || index_.root_of(k) == index_.root_of(Warehouse::key(own_w));
  }
  // Memory-level parallelism inside a transaction (engine.prefetch, hash index): a TPC-C
  // transaction's index slots and rows are scattered over more memory than the cache holds, and
  // phase 1 would wait for them one at a time (an index slot, then its row, for each of
  // NewOrder's ~23 keys). prefetch_part brings them in as a group before phase 1: pass 0
  // prefetches every key's index slot (and a by-name Payment's last-name list), pass 1 looks
  // each key up (its slot is arriving) and prefetches the parts of its row the procedures read
  // or write, pass 2 follows a by-name list to its customer. Only hints: nothing is locked or
  // changed, and phase 1 finds and locks every row as before.
  template <int Write = 0>
  static void prefetch_lines(const void* at, std::size_t bytes) {
    const auto begin = reinterpret_cast<std::uintptr_t>(at);
    for (std::uintptr_t line = begin & ~std::uintptr_t{63}; line < begin + bytes; line += 64) {
      __builtin_prefetch(reinterpret_cast<const void*>(line), Write, 3);
    }
  }
  // A row's header (lock word, key) and its first `columns` columns, for writing or reading.
  template <int Write = 0>
  static void prefetch_row(const Row* row, std::uint32_t columns) {
    if (row) prefetch_lines<Write>(row, sizeof(Row) + columns * sizeof(std::int32_t));
  }
  void prefetch_part(const std::uint64_t* words, std::size_t n, RowMemo& memo) const {
    if constexpr (std::is_same_v<Index, HashIndex>) {
      if (!engine_.prefetch) return;
      bool by_name = false;
      for (std::size_t at = 0; at < n; at += op_words(&words[at])) {
        const std::uint64_t* op = &words[at];
        switch (op[0]) {
          case kNewOrderHome:
            index_.prefetch(Warehouse::key(op[1]));
            index_.prefetch(District::key(op[1], op[2]));
            index_.prefetch(Customer::key(op[1], op[2], op[3]));
            for (std::uint64_t k = 0; k < op[4]; ++k) index_.prefetch(Item::key(op[6 + 3 * k]));
            break;
          case kStock: index_.prefetch(Stock::key(op[1], op[2])); break;
          case kPaymentHome:
            index_.prefetch(Warehouse::key(op[1]));
            index_.prefetch(District::key(op[1], op[2]));
            break;
          case kPaymentCustomer:
            if (op[3]) {
              by_name = true;
              if (owns_warehouse(op[1])) __builtin_prefetch(&by_last_[last_slot(op[1], op[2], op[4])]);
            } else {
              index_.prefetch(Customer::key(op[1], op[2], op[4]));
            }
            break;
          default: break;  // the others are rare in the mixes that matter; phase 1 finds their rows
        }
      }
      for (std::size_t at = 0; at < n; at += op_words(&words[at])) {
        const std::uint64_t* op = &words[at];
        switch (op[0]) {
          case kNewOrderHome: {
            prefetch_row(remember(memo, Warehouse::key(op[1])), Warehouse::kColumns);
            prefetch_row<1>(remember(memo, District::key(op[1], op[2])), District::kColumns);
            const Row* cust = remember(memo, Customer::key(op[1], op[2], op[3]));
            prefetch_row(cust, Customer::kColumns);
            if (cust && spec_) {
              prefetch_lines(Customer::text(cust).last, 1);
              prefetch_lines(Customer::text(cust).credit, 1);
            }
            for (std::uint64_t k = 0; k < op[4]; ++k) {
              const Row* item = remember(memo, Item::key(op[6 + 3 * k]));
              prefetch_row(item, Item::kColumns);
              if (item && spec_) prefetch_lines(&Item::text(item), sizeof(Item::Text));
            }
            break;
          }
          case kStock: {
            const Row* s = remember(memo, Stock::key(op[1], op[2]));
            prefetch_row<1>(s, Stock::kColumns);
            if (s && spec_) {
              prefetch_lines(Stock::text(s).dist[op[5] - 1], sizeof Stock::Text::dist[0]);
              prefetch_lines(Stock::text(s).data, sizeof Stock::Text::data);
            }
            break;
          }
          case kPaymentHome: {
            const Row* wh = remember(memo, Warehouse::key(op[1]));
            const Row* dist = remember(memo, District::key(op[1], op[2]));
            prefetch_row<1>(wh, Warehouse::kColumns);
            prefetch_row<1>(dist, District::kColumns);
            if (spec_ && wh && dist) {  // what the terminal shows, and H_DATA's names
              prefetch_lines(&Warehouse::text(wh), sizeof(Warehouse::Text));
              prefetch_lines(&District::text(dist), sizeof(District::Text));
            }
            break;
          }
          case kPaymentCustomer:
            if (op[3]) {
              if (!owns_warehouse(op[1])) break;
              const auto& list = by_last_[last_slot(op[1], op[2], op[4])];
              if (!list.empty()) __builtin_prefetch(&list[(list.size() + 1) / 2 - 1]);
            } else {
              prefetch_customer(remember(memo, Customer::key(op[1], op[2], op[4])));
            }
            break;
          default: break;
        }
      }
      if (!by_name) return;
      for (std::size_t at = 0; at < n; at += op_words(&words[at])) {
        const std::uint64_t* op = &words[at];
        if (op[0] != kPaymentCustomer || !op[3] || !owns_warehouse(op[1])) continue;
        const auto& list = by_last_[last_slot(op[1], op[2], op[4])];
        if (!list.empty()) prefetch_customer(list[(list.size() + 1) / 2 - 1]);
      }
    } else {
      (void)words;
      (void)n;
      (void)memo;
    }
  }
  // find(k), remembered in memo.
  Row* remember(RowMemo& memo, std::uint64_t k) const {
    Row* row = find(k);
    memo.put(k, row);
    return row;
  }
  // Payment's customer: its numeric columns (written) and, in the spec layout, C_FIRST and C_CREDIT.
  void prefetch_customer(const Row* cust) const {
    prefetch_row<1>(cust, Customer::kColumns);
    if (cust && spec_) {
      prefetch_lines(Customer::text(cust).first, 1);
      prefetch_lines(Customer::text(cust).credit, 1);
    }
  }
  // Whether warehouse w is one of this instance's (by_last_ holds only those).
  bool owns_warehouse(std::uint64_t w) const {
    const std::uint64_t first = first_site_ * config_.warehouses_per_site;
    return w >= first && w < first + sites_ * config_.warehouses_per_site;
  }
  // Before-images, where writes are in place: the whole row, or only the numeric columns of
  // table T (what most steps change).
  template <class CC>
  static void save(const Part<CC>& part, Row* row, const Table& table) {
    if constexpr (CC::kInPlace) part.ctx.save_before_image(row, table.columns());
  }
  template <class T, class CC>
  static void save_numeric(const Part<CC>& part, Row* row) {
    if constexpr (CC::kInPlace) part.ctx.save_before_image(row, T::kColumns);
  }
  // Payload columns of a row of table `tag` in this run's layout.
  std::size_t columns_of(std::uint64_t tag) const {
    switch (tag) {
      case tpcc::kWarehouseTag: return warehouses_.columns();
      case tpcc::kDistrictTag: return districts_.columns();
      case tpcc::kCustomerTag: return customers_.columns();
      case tpcc::kOrderTag: return orders_.columns();
      case tpcc::kNewOrderTag: return new_orders_.columns();
      case tpcc::kOrderLineTag: return order_lines_.columns();
      case tpcc::kItemTag: return items_.columns();
      case tpcc::kStockTag: return stock_.columns();
      default: return history_.columns();
    }
  }
  std::int64_t rows_of(const Table& table) const {
    std::int64_t n = 0;
    for (std::size_t s = 0; s < table.sites(); ++s) n += static_cast<std::int64_t>(table.rows(s));
    return n;
  }

  TpccConfig config_;
  EngineConfig engine_;
  std::size_t sites_;
  std::size_t first_site_;
  std::uint64_t total_warehouses_;
  std::array<std::uint32_t, kTpccTxnTypes> weights_;
  bool spec_;                      // spec layout
  std::uint64_t budget_bytes_ = 0;  // memory_budget of the memory available at construction; 0: unknown
  enum : int { kWithinBudget, kWritingReason, kOverBudget };
  mutable std::atomic<int> budget_state_{kWithinBudget};  // kOverBudget once over_budget_reason_ is written
  mutable std::string over_budget_reason_;
  Table warehouses_, districts_, customers_, history_, orders_, new_orders_, order_lines_, items_, stock_;
  RootedIndex<Index, Roots> index_;
  RootedIndex<BTreeIndex, CustomerRoots> by_customer_;  // ordered secondary index: (w, d, customer, order) -> order
  std::vector<std::vector<Row*>> by_last_;  // secondary index: (warehouse, district, last name) -> customers
};

}  // namespace islands

// The out-of-line members: loader, procedures and checks.
#include "islands/workload/tpcc_loader.hpp"
#include "islands/workload/tpcc_procedures.hpp"
#include "islands/workload/tpcc_checks.hpp"
#include "islands/workload/tpcc_redo.hpp"
