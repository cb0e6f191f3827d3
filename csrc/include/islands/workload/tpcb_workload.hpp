#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
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
#include "islands/storage/table.hpp"
#include "islands/txn/txn_context.hpp"
#include "islands/settings/tpcb_config.hpp"
#include "islands/exec/txn_part.hpp"
#include "islands/exec/run_config.hpp"
#include "islands/exec/workload_interface.hpp"

namespace islands {

//! TPC-B's data and its AccountUpdate transaction (see TpcbConfig). Row ids are global:
//! branch b, teller b * tellers_per_branch + t, account b * accounts_per_branch + a. One primary
//! index holds the three keyed tables, the table number in the key's top bits. A transaction
//! is a list of operations (account, teller, branch, history insert), each executed by the
//! site holding its row; remote ones travel as a part (see TxnPart). Under PLP with per-unit
//! roots (engine.plp_index) the index has one latch-free root per site, TPC-B's one routing
//! unit per site, which `locate` gives every operation on the site's branches
//! (index/rooted_index.hpp).
template <class Index>
class TpcbWorkload {
 public:
  using IndexType = Index;    //!< the primary index structure
  using Config = TpcbConfig;  //!< its settings

  //! One transaction type.
  static std::vector<std::string> transaction_names() { return {"account_update"}; }
  //! The settings, for a deployment of total_sites sites.
  static void validate_settings(const Config& config, const RunConfig&, std::uint64_t total_sites) {
    config.validate_fit(total_sites);
  }
  //! Payload columns: balance (int64 in columns 0-1), branch id, filler to the 100-byte rows
  //! of the specification (16-byte header + 21 x 4).
  static constexpr std::uint32_t kColumns = 21;
  //! History: account (0-1), teller (2-3), branch (4-5), delta (6-7), filler to ~50 bytes.
  static constexpr std::uint32_t kHistoryColumns = 9;

  //! Operation codes in a part's words: [op][id][delta], history [op][account][teller][branch][delta].
  enum Op : std::uint64_t { kAccount = 1, kTeller = 2, kBranch = 3, kHistory = 4 };

  //! One transaction's input.
  struct Txn {
    std::uint64_t branch = 0, teller = 0, account = 0;
    std::int64_t delta = 0;
    std::vector<std::uint64_t> words;  //!< all its operations, encoded
    std::vector<Row*> rows;            //!< scratch
  };

  //! Index bytes a key (the hash index's measured footprint, about 50, rounded up).
  static constexpr std::uint64_t kIndexBytesPerKey = 64;
  //! Branches, tellers and accounts of a site's branches, reserved exactly, one index key a
  //! row; the history, empty at load (transactions insert it).
  static std::vector<TableLoad> load_size(const Config& config) {
    const std::uint64_t branches = config.branches_per_site;
    return {fixed_table("branch", kColumns, branches, kIndexBytesPerKey),
            fixed_table("teller", kColumns, branches * config.tellers_per_branch, kIndexBytesPerKey),
            fixed_table("account", kColumns, branches * config.accounts_per_branch, kIndexBytesPerKey),
            fixed_table("history", kHistoryColumns, 0, 0, true)};
  }
  //! Every AccountUpdate writes.
  static bool writes(const Config&) { return true; }
  //! Its load grows with the accounts of a branch.
  static std::string size_setting() { return "tpcb.accounts_per_branch"; }
  //! Each table's rows at this instance.
  std::vector<TableRows> table_rows() const {
    return {table_rows_of("branch", branches_), table_rows_of("teller", tellers_), table_rows_of("account", accounts_),
            table_rows_of("history", history_)};
  }

  TpcbWorkload(const TpcbConfig& config, const EngineConfig& engine, std::size_t sites,
               std::size_t first_site = 0, std::size_t total_sites = 0)
      : config_(config),
        engine_(engine),
        sites_(sites),
        first_site_(first_site),
        total_sites_(total_sites ? total_sites : sites),
        accounts_(sites, kColumns),
        tellers_(sites, kColumns),
        branches_(sites, kColumns),
        history_(sites, kHistoryColumns),
        index_(per_unit_index_roots(engine) ? sites : 1,
               sites * std::size_t{config.branches_per_site} * (config.accounts_per_branch + config.tellers_per_branch + 1),
               Roots{config.branches_per_site, config.accounts_per_branch, config.tellers_per_branch, first_site}) {
    config_.validate_fit(total_sites_);
  }

  //! Creates and indexes the rows of local site `site`; called by its owner (first touch).
  void load_site(std::size_t site) {
    const std::uint64_t first = (first_site_ + site) * config_.branches_per_site;
    branches_.reserve(site, config_.branches_per_site);
    tellers_.reserve(site, std::size_t{config_.branches_per_site} * config_.tellers_per_branch);
    accounts_.reserve(site, std::size_t{config_.branches_per_site} * config_.accounts_per_branch);
    for (std::uint64_t b = first; b < first + config_.branches_per_site; ++b) {
      add(branches_, site, kBranch, b, b);
      for (std::uint64_t t = 0; t < config_.tellers_per_branch; ++t) {
        add(tellers_, site, kTeller, b * config_.tellers_per_branch + t, b);
      }
      for (std::uint64_t a = 0; a < config_.accounts_per_branch; ++a) {
        add(accounts_, site, kAccount, b * config_.accounts_per_branch + a, b);
      }
    }
  }

  //! After every site is loaded: switch index latching to the run's setting.
  //! (Off in per-unit roots: only a unit's owner touches its root, see index/rooted_index.hpp.)
  void finish_load(bool single_threaded) {
    index_.set_latching(engine_.latching && !single_threaded && !per_unit_index_roots(engine_));
  }

  //! Draws the next AccountUpdate of a worker whose home (global) site is `home`: a branch of
  //! that site, an account and a teller of it; in the remote share the teller (remote_pick =
  //! teller) or the account (remote_pick = account) of another branch. The branch updated is
  //! the home one: the account's with a remote teller, the teller's with a remote account.
  void generate(Txn& txn, Random& rng, std::size_t home) const {
    const std::uint64_t total_branches = std::uint64_t{total_sites_} * config_.branches_per_site;
    txn.branch = home * config_.branches_per_site + rng.below(config_.branches_per_site);
    std::uint64_t other = txn.branch;  // the branch the remote teller or account comes from
    if (config_.remote > 0 && rng.unit() < config_.remote) {
      other = rng.below(total_branches - 1);
      if (other >= txn.branch) ++other;  // uniform over the other branches
    }
    const bool remote_account = config_.remote_account();
    txn.account = (remote_account ? other : txn.branch) * config_.accounts_per_branch +
                  rng.below(config_.accounts_per_branch);
    txn.teller = (remote_account ? txn.branch : other) * config_.tellers_per_branch +
                 rng.below(config_.tellers_per_branch);
    txn.delta = static_cast<std::int64_t>(rng.below(1999999)) - 999999;  // [-999999, 999999]
    const auto delta = static_cast<std::uint64_t>(txn.delta);
    txn.words = {kAccount, txn.account, delta, kBranch, txn.branch, delta,
                 kTeller, txn.teller, delta, kHistory, txn.account, txn.teller, txn.branch, delta};
  }


  //! Splits a transaction into one part per instance (`instance_of_site` maps global sites).
  void split(const Txn& txn, const std::vector<std::uint32_t>& instance_of_site,
             std::vector<TxnPart>& parts) const {
    split_operations(txn.words, instance_of_site, parts, op_at(txn));
  }
  //! Whether every operation of `txn` is at this instance's sites (the worker runs it uncut).
  bool local_txn(const Txn& txn) const { return operations_within(txn.words, first_site_, sites_, op_at(txn)); }
  //! The operation starting at word `at` of the `n` words of a transaction (or of an action
  //! cut from one): {its words, the routing unit holding its data} (exec/routing_unit.hpp;
  //! PLP routes by it).
  //! (A whole site is one unit: a branch's rows and its history move together.)
  std::pair<std::size_t, std::uint64_t> locate(const std::uint64_t* words, std::size_t, std::size_t at) const {
    return {op_words(words[at]), site_of_op(&words[at]) * kUnitsPerSite};
  }

  //! Whether a part changes data (every TPC-B operation does).
  bool part_updates(const std::uint64_t*, std::size_t) const { return true; }
  //! Most words a part can hold (sizes fragments).
  std::size_t max_part_words() const { return 14; }
  //! Rows a committed transaction updated (statistics).
  std::size_t row_updates(const Txn&) const { return 3; }
  std::size_t type_of(const Txn&) const { return 0; }  //!< one transaction type: AccountUpdate
  //! Widest row of any table, in payload columns.
  std::size_t max_columns() const { return kColumns; }

  //! Executes the operations words[0, n) (all of rows this instance holds) under `cc`, leaving
  //! locks, before-images and inserts in ctx for the caller to commit; on failure already
  //! undone. Every row is found and locked before any is changed.
  template <class CC>
  TxnResult execute_part(const std::uint64_t* words, std::size_t n, std::vector<Row*>& rows,
                         TxnContext& ctx, const CC& cc, std::uint64_t&) {
    ComponentScope execution(ctx.clock(), Component::execution);
    rows.clear();
    for (std::size_t at = 0; at < n; at += op_words(words[at])) {
      if (words[at] == kHistory) continue;
      std::uint64_t value = 0;
      const bool found = index_.lookup(key_of(words[at], words[at + 1]), value);
      ISLANDS_CHECK(found, "TPC-B row missing from the index");
      rows.push_back(reinterpret_cast<Row*>(value));
    }
    {
      ComponentScope locking(ctx.clock(), Component::locking);
      AbortReason reason = AbortReason::lock_conflict;
      for (Row*& row : rows) {
        Row* image = cc.open(row, LockMode::exclusive, ctx, reason, static_cast<std::uint32_t>(row->key >> 48), kColumns);
        if (!image) {
          if constexpr (CC::kLocks) ctx.abort();
          return TxnResult::abort(reason);
        }
        if constexpr (!CC::kInPlace) row = image;  // the image to write (in place: the row)
      }
    }
    std::size_t r = 0;
    for (std::size_t at = 0; at < n; at += op_words(words[at])) {
      if (words[at] == kHistory) {
        const std::size_t site = site_of_branch(words[at + 3]) - first_site_;
        Row* row = history_.allocate(site, history_key(words[at + 3]));
        set64(row, 0, static_cast<std::int64_t>(words[at + 1]));
        set64(row, 2, static_cast<std::int64_t>(words[at + 2]));
        set64(row, 4, static_cast<std::int64_t>(words[at + 3]));
        set64(row, 6, static_cast<std::int64_t>(words[at + 4]));
        ctx.inserted(row);
        ctx.wrote(row, kHistoryColumns);
        continue;
      }
      Row* row = rows[r++];
      if constexpr (CC::kLocks && CC::kInPlace) ctx.save_before_image(row, kColumns);
      set64(row, 0, get64(row, 0) + static_cast<std::int64_t>(words[at + 2]));
      ctx.wrote(row, kColumns);
    }
    return TxnResult::commit();
  }

  //! Whether its writes are logged (redo captured, recovery and checkpoints supported).
  static constexpr bool kLogs = true;
  //! Calls f(row, columns) for every row of this instance (checkpoints); rolled-back history
  //! inserts are skipped.
  template <class F>
  void for_each_row(F&& f) const {
    for (std::size_t s = 0; s < sites_; ++s) {
      branches_.for_each_row(s, [&](const Row& row) { f(row, kColumns); });
      tellers_.for_each_row(s, [&](const Row& row) { f(row, kColumns); });
      accounts_.for_each_row(s, [&](const Row& row) { f(row, kColumns); });
      history_.for_each_row(s, [&](const Row& row) {
        if (!row.deleted()) f(row, kHistoryColumns);
      });
    }
  }

  //! Recovery: a history after-image is inserted into its branch's site; any other overwrites
  //! the row of its key. False when this instance holds no such row (or branch) or the image
  //! has another width.
  bool redo(std::uint64_t key, const std::int32_t* image, std::size_t columns) {
    if (key >> 48 == kHistory) {
      const std::uint64_t site = site_of_branch(key & ((std::uint64_t{1} << 48) - 1));
      if (columns != kHistoryColumns || site < first_site_ || site >= first_site_ + sites_) return false;
      std::memcpy(history_.allocate(site - first_site_, key)->columns(), image, 4 * columns);
      return true;
    }
    std::uint64_t value = 0;
    if (columns != kColumns || !index_.lookup(key, value)) return false;
    std::memcpy(reinterpret_cast<Row*>(value)->columns(), image, 4 * columns);
    return true;
  }

  //! Recovery: TPC-B never deletes a row, so no log holds a delete for it.
  bool redo_delete(std::uint64_t) { return false; }
  //! Recovery from a checkpoint: the history, which transactions insert, is empty at load and
  //! the snapshot holds its rows; every other row is loaded and overwritten. Nothing to drop.
  void clear_for_snapshot() {}

  //! The global site that holds branch b.
  std::uint64_t site_of_branch(std::uint64_t b) const { return b / config_.branches_per_site; }

  //! Consistency figures over this instance's sites (TPC-B clause 2.4-style balance checks):
  //! balance sums per table, the history's delta sum and rows, how many branches disagree
  //! with their accounts or with their history, and the rows of each keyed table (loader
  //! check). Every sum must agree across the deployment.
  //! History rows at the start: a restart recovers rows that earlier runs committed.
  static std::vector<std::string> figures_at_start() { return {"history_rows"}; }
  //! Every balance moved by the same deltas (branch = teller = account = history sums); one
  //! history row per committed transaction since the start; each branch equal to its history,
  //! to its accounts (unless accounts are remote) and to its tellers (unless tellers are).
  static std::vector<std::string> conditions() {
    return {"balance_sums", "history_rows", "branches_unlike_accounts", "branches_unlike_tellers",
            "branches_unlike_history"};
  }
  //! The conditions `checks` violate.
  static std::vector<std::string> verify(const CheckMap& checks) {
    std::vector<std::string> failures;
    const char* sums[] = {"branch_balance_sum", "teller_balance_sum", "account_balance_sum", "history_delta_sum"};
    bool agree = true;
    for (const char* name : sums) agree = agree && figure(checks, name) == figure(checks, sums[0]);
    if (!agree) {
      std::string list;
      for (const char* name : sums) list += (list.empty() ? "" : ", ") + std::string(name) + "=" + grouped(figure(checks, name));
      failures.push_back("tpcb: balance sums disagree: " + list);
    }
    const auto start = checks.find("history_rows_at_start");
    const std::int64_t added = figure(checks, "history_rows") - (start == checks.end() ? 0 : start->second);
    if (added != figure(checks, "committed_txns")) {
      failures.push_back("tpcb: " + grouped(added) + " history rows added for " + grouped(figure(checks, "committed_txns")) +
                         " committed transactions");
    }
    for (const auto& [name, what] : {std::pair<const char*, const char*>{"branches_unlike_accounts", "the sum of its accounts"},
                                     {"branches_unlike_tellers", "the sum of its tellers"},
                                     {"branches_unlike_history", "the sum of its history"}}) {
      // A per-branch condition is present only where the run's remote choice keeps it true.
      if (checks.count(name) != 0 && figure(checks, name) != 0) {
        failures.push_back("tpcb: " + grouped(figure(checks, name)) + " branches whose balance is not " + what);
      }
    }
    return failures;
  }

  CheckFigures check_figures() const {
    std::int64_t branch_sum = 0, teller_sum = 0, account_sum = 0, history_sum = 0, history_rows = 0;
    std::int64_t branch_vs_accounts = 0, branch_vs_tellers = 0, branch_vs_history = 0;
    const std::uint64_t first_branch = first_site_ * config_.branches_per_site;
    const std::size_t n_branches = sites_ * config_.branches_per_site;
    std::vector<std::int64_t> by_branch_accounts(n_branches, 0), by_branch_tellers(n_branches, 0),
        by_branch_history(n_branches, 0);
    for (std::size_t s = 0; s < sites_; ++s) {
      branches_.for_each_row(s, [&](const Row& row) { branch_sum += get64(&row, 0); });
      tellers_.for_each_row(s, [&](const Row& row) {
        teller_sum += get64(&row, 0);
        by_branch_tellers[static_cast<std::uint64_t>(row.columns()[2]) - first_branch] += get64(&row, 0);
      });
      accounts_.for_each_row(s, [&](const Row& row) {
        account_sum += get64(&row, 0);
        by_branch_accounts[static_cast<std::uint64_t>(row.columns()[2]) - first_branch] += get64(&row, 0);
      });
      history_.for_each_row(s, [&](const Row& row) {
        if (row.deleted()) return;
        history_sum += get64(&row, 6);
        ++history_rows;
        by_branch_history[static_cast<std::uint64_t>(get64(&row, 4)) - first_branch] += get64(&row, 6);
      });
    }
    for (std::size_t s = 0; s < sites_; ++s) {
      branches_.for_each_row(s, [&](const Row& row) {
        const std::size_t b = row.key - branch_key_base() - first_branch;
        if (get64(&row, 0) != by_branch_accounts[b]) ++branch_vs_accounts;
        if (get64(&row, 0) != by_branch_tellers[b]) ++branch_vs_tellers;
        if (get64(&row, 0) != by_branch_history[b]) ++branch_vs_history;
      });
    }
    CheckFigures figures{{"branch_balance_sum", branch_sum},   {"teller_balance_sum", teller_sum},
                         {"account_balance_sum", account_sum}, {"history_delta_sum", history_sum},
                         {"history_rows", history_rows},       {"branches_unlike_history", branch_vs_history},
                         {"branch_rows", rows_of(branches_)},  {"teller_rows", rows_of(tellers_)},
                         {"account_rows", rows_of(accounts_)}};
    // A branch moves with its own accounts unless remote transactions take accounts elsewhere,
    // and with its own tellers unless they take tellers elsewhere.
    const bool local_only = config_.remote == 0.0;
    if (local_only || !config_.remote_account()) figures.emplace_back("branches_unlike_accounts", branch_vs_accounts);
    if (local_only || config_.remote_account()) figures.emplace_back("branches_unlike_tellers", branch_vs_tellers);
    figures.emplace_back("index_roots", static_cast<std::int64_t>(index_.roots()));
    figures.emplace_back("index_latched_roots", index_.latching() ? static_cast<std::int64_t>(index_.roots()) : 0);
    return figures;
  }

  //! The root of a key: its branch's site, the one routing unit of that site that locate
  //! routes every operation of the branch's rows to (a whole site is one unit).
  struct Roots {
    std::uint64_t branches_per_site;    //!< branches per site
    std::uint64_t accounts_per_branch;  //!< accounts per branch
    std::uint64_t tellers_per_branch;   //!< tellers per branch
    std::uint64_t first_site;           //!< this instance's first site
    //! The root number of key.
    std::size_t operator()(std::uint64_t key) const {
      const std::uint64_t id = key & ((std::uint64_t{1} << 48) - 1);
      const std::uint64_t op = key >> 48;
      const std::uint64_t branch = op == kAccount ? id / accounts_per_branch : op == kTeller ? id / tellers_per_branch : id;
      return branch / branches_per_site - first_site;
    }
  };

 private:
  std::int64_t rows_of(const Table& table) const {
    std::int64_t n = 0;
    for (std::size_t s = 0; s < sites_; ++s) n += static_cast<std::int64_t>(table.rows(s));
    return n;
  }

  static std::size_t op_words(std::uint64_t op) { return op == kHistory ? 5 : 3; }
  static std::uint64_t key_of(std::uint64_t table, std::uint64_t id) { return (table << 48) | id; }
  static std::uint64_t branch_key_base() { return key_of(kBranch, 0); }
  static std::uint64_t history_key(std::uint64_t branch) { return key_of(kHistory, branch); }

  std::uint64_t site_of_op(const std::uint64_t* op) const {
    switch (op[0]) {
      case kAccount: return site_of_branch(op[1] / config_.accounts_per_branch);
      case kTeller: return site_of_branch(op[1] / config_.tellers_per_branch);
      case kBranch: return site_of_branch(op[1]);
      default: return site_of_branch(op[3]);
    }
  }

  void add(Table& table, std::size_t site, std::uint64_t kind, std::uint64_t id, std::uint64_t branch) {
    Row* row = table.allocate(site, key_of(kind, id));
    row->columns()[2] = static_cast<std::int32_t>(branch);
    const bool fresh = index_.insert(row->key, reinterpret_cast<std::uint64_t>(row));
    ISLANDS_CHECK(fresh, "TPC-B row loaded twice");
  }

  static std::int64_t get64(const Row* row, std::size_t column) {
    std::int64_t v;
    std::memcpy(&v, row->columns() + column, sizeof v);
    return v;
  }
  static void set64(Row* row, std::size_t column, std::int64_t v) {
    std::memcpy(row->columns() + column, &v, sizeof v);
  }

  TpcbConfig config_;
  EngineConfig engine_;
  // {words, global site} of the operation at word `at` of txn (split_operations' op_at).
  auto op_at(const Txn& txn) const {
    return [this, &txn](std::size_t at) {
      return std::pair<std::size_t, std::uint64_t>{op_words(txn.words[at]), site_of_op(&txn.words[at])};
    };
  }

  std::size_t sites_;
  std::size_t first_site_;
  std::size_t total_sites_;
  Table accounts_, tellers_, branches_, history_;
  RootedIndex<Index, Roots> index_;
};

}  // namespace islands
