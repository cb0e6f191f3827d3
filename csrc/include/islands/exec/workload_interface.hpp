#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "islands/cc/concurrency_control.hpp"
#include "islands/common/abort_reason.hpp"
#include "islands/common/random.hpp"
#include "islands/settings/engine_config.hpp"
#include "islands/exec/load_size.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/storage/row.hpp"
#include "islands/txn/txn_context.hpp"
#include "islands/exec/txn_part.hpp"

namespace islands {

struct RunConfig;

//! What every workload provides, for one primary index `Index` (a class template W<Index>).
//! Checked at compile time by assert_workload<W>() where the registry builds it.
//!
//! Types and constants
//!   using IndexType = Index; using Config = ...;      its settings struct (workload_list.hpp)
//!   struct Txn { std::vector<std::uint64_t> words; std::vector<Row*> rows; ... };
//!       one transaction, encoded as operations in `words` (what split cuts into parts and a
//!       fragment carries); `rows` is scratch
//!   static constexpr bool kLogs;                      whether its writes reach the log (redo)
//!   static std::vector<std::string> transaction_names();   by type number (type_of)
//!   static void validate_settings(const Config&, const RunConfig&, std::uint64_t total_sites);
//!       throws ConfigError for settings that cannot run on a deployment of total_sites sites
//! Schema and load
//!   static std::vector<TableLoad> load_size(const Config&);   its tables, with their rows a
//!       site (and an instance) and their row and index bytes, as functions of its settings:
//!       what a load allocates, estimated before it (memory admission; exec/load_size.hpp)
//!   static bool writes(const Config&);               whether its transactions can write
//!       under these settings (a series that cannot runs unlogged)
//!   static std::string size_setting();                "section.field" of the setting that
//!       sizes its load (what a refusal for memory names)
//!   std::vector<TableRows> table_rows() const;        each table's rows at this instance now,
//!       named as load_size names them (a test holds a load to its declaration)
//!   W(const Config&, const EngineConfig&, std::size_t sites, std::size_t first_site,
//!     std::size_t total_sites);                      this instance holds global sites
//!                                                    [first_site, first_site + sites)
//!   void load_site(std::size_t site);                 by the site's owner thread (first touch)
//!   void finish_load(bool single_threaded);           index latching for the run
//! Transactions
//!   void generate(Txn&, Random&, std::size_t home_site) const;
//!   void split(const Txn&, const std::vector<std::uint32_t>& instance_of_site,
//!              std::vector<TxnPart>& parts) const;    one part per instance (split_operations)
//!   template <class CC> TxnResult execute_part(const std::uint64_t* words, std::size_t n,
//!       std::vector<Row*>& rows, TxnContext&, const CC&, std::uint64_t& checksum);
//!       runs a part under CC, leaving locks and images in the context for the caller to
//!       commit; on abort or user rollback everything is already undone
//!   bool part_updates(const std::uint64_t*, std::size_t) const;  std::size_t max_part_words() const;
//!   std::size_t row_updates(const Txn&) const;  std::size_t type_of(const Txn&) const;
//!   std::size_t max_columns() const;                  widest row (redo images, contexts)
//! Optional
//!   bool local_txn(const Txn&) const;  whether every operation is at this instance's sites:
//!       the worker then runs the transaction's words as they are, without cutting it into
//!       parts (the common case of a deployment; split copies every operation)
//!   std::string stop_reason() const;   why the run must end before its time (empty: it need
//!       not), e.g. a memory budget reached; the instance polls it and ends the run cleanly
//!   bool consumes(const std::uint64_t* words, std::size_t n, std::size_t at) const;  whether the
//!       operation at word `at` consumes data other operations of its transaction produce; with
//!       it, execute_part takes an ActionIo* last (exec/action_io.hpp, nullptr outside PLP
//!       stages) and PLP runs such operations in a second stage (exec/plp/plp_stages.hpp)
//! Consistency conditions
//!   static std::vector<std::string> figures_at_start();   figures the conditions need as they
//!       stood when the run started (after loading and recovery), as NAME_at_start
//!   static std::vector<std::string> verify(const CheckMap&);   the conditions the figures
//!       summed over the deployment violate (empty: consistent), one line each
//!   static std::vector<std::string> conditions();    the names of the conditions verify
//!       checks, one each
//! Log (when kLogs) and checks: a transaction reports each row it changed or inserted with
//!   TxnContext::wrote() (its after-image; the first columns only when only they changed) and
//!   deletes through TxnContext::deleting(); recovery (log/log_recovery.hpp) replays them:
//!   bool redo(std::uint64_t key, const std::int32_t* image, std::size_t columns);
//!       overwrites the row of key (its first `columns` columns) or inserts it into its table
//!       and every secondary and ordered index; false when this instance cannot hold it
//!   bool redo_delete(std::uint64_t key);              removes the row from its table and
//!       every index; false when this instance holds no such row
//!   void clear_for_snapshot();                        before a checkpoint snapshot is applied:
//!       drops the loaded rows of every table whose rows transactions insert or delete (with
//!       their index entries); the snapshot re-inserts those it holds and overwrites the rest
//!   template <class F> void for_each_row(F&&) const;  f(const Row&, columns) for every live
//!       row of every table (checkpoints)
//!   CheckFigures check_figures() const;               consistency figures by name
//! The figure called name; throws std::invalid_argument naming it when it is missing.
inline std::int64_t figure(const CheckMap& checks, const std::string& name) {
  const auto it = checks.find(name);
  if (it == checks.end()) throw std::invalid_argument("checks: no figure '" + name + "'");
  return it->second;
}

//! n with thousands separators ("1,234,567"), as the conditions print figures.
inline std::string grouped(std::int64_t n) {
  const std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

template <class W>
constexpr bool assert_workload() {
  using Txn = typename W::Txn;
  using Config = typename W::Config;
  static_assert(std::is_same_v<decltype(std::declval<Txn&>().words), std::vector<std::uint64_t>>,
                "Txn::words: a transaction is its operations as 64-bit words");
  static_assert(std::is_same_v<decltype(std::declval<Txn&>().rows), std::vector<Row*>>, "Txn::rows: scratch rows");
  static_assert(std::is_same_v<std::remove_cv_t<decltype(W::kLogs)>, bool>, "kLogs: whether writes are logged");
  static_assert(std::is_same_v<decltype(W::transaction_names()), std::vector<std::string>>,
                "transaction_names(): the type names, by type_of");
  static_assert(std::is_void_v<decltype(W::validate_settings(std::declval<const Config&>(),
                                                             std::declval<const RunConfig&>(), std::uint64_t{}))>,
                "validate_settings(settings, run, total_sites)");
  static_assert(std::is_constructible_v<W, const Config&, const EngineConfig&, std::size_t, std::size_t, std::size_t>,
                "W(settings, engine, sites, first_site, total_sites)");
  static_assert(std::is_void_v<decltype(std::declval<W&>().load_site(std::size_t{}))>, "load_site(site)");
  static_assert(std::is_void_v<decltype(std::declval<W&>().finish_load(bool{}))>, "finish_load(single_threaded)");
  static_assert(std::is_void_v<decltype(std::declval<const W&>().generate(std::declval<Txn&>(), std::declval<Random&>(),
                                                                          std::size_t{}))>,
                "generate(txn, rng, home_site) const");
  static_assert(std::is_void_v<decltype(std::declval<const W&>().split(
                    std::declval<const Txn&>(), std::declval<const std::vector<std::uint32_t>&>(),
                    std::declval<std::vector<TxnPart>&>()))>,
                "split(txn, instance_of_site, parts) const");
  static_assert(std::is_same_v<decltype(std::declval<W&>().execute_part(
                                   std::declval<const std::uint64_t*>(), std::size_t{}, std::declval<std::vector<Row*>&>(),
                                   std::declval<TxnContext&>(), std::declval<const TwoPhaseLocking&>(),
                                   std::declval<std::uint64_t&>())),
                               TxnResult>,
                "execute_part<CC>(words, n, rows, ctx, cc, checksum) -> TxnResult");
  static_assert(std::is_same_v<decltype(std::declval<const W&>().part_updates(std::declval<const std::uint64_t*>(),
                                                                              std::size_t{})),
                               bool>,
                "part_updates(words, n) const -> bool");
  static_assert(std::is_same_v<decltype(std::declval<const W&>().max_part_words()), std::size_t>, "max_part_words()");
  static_assert(std::is_same_v<decltype(std::declval<const W&>().row_updates(std::declval<const Txn&>())), std::size_t>,
                "row_updates(txn) const");
  static_assert(std::is_same_v<decltype(std::declval<const W&>().type_of(std::declval<const Txn&>())), std::size_t>,
                "type_of(txn) const");
  static_assert(std::is_same_v<decltype(std::declval<const W&>().max_columns()), std::size_t>, "max_columns() const");
  if constexpr (W::kLogs) {
    static_assert(std::is_same_v<decltype(std::declval<W&>().redo(std::uint64_t{}, std::declval<const std::int32_t*>(),
                                                                  std::size_t{})),
                                 bool>,
                  "a workload that logs: redo(key, image, columns) -> bool");
    static_assert(std::is_same_v<decltype(std::declval<W&>().redo_delete(std::uint64_t{})), bool>,
                  "a workload that logs: redo_delete(key) -> bool");
    static_assert(std::is_void_v<decltype(std::declval<W&>().clear_for_snapshot())>,
                  "a workload that logs: clear_for_snapshot()");
  }
  static_assert(std::is_same_v<decltype(std::declval<const W&>().check_figures()), CheckFigures>,
                "check_figures() const -> CheckFigures");
  static_assert(std::is_same_v<decltype(W::figures_at_start()), std::vector<std::string>>,
                "figures_at_start(): the figures the conditions need from the run's start");
  static_assert(std::is_same_v<decltype(W::verify(std::declval<const CheckMap&>())), std::vector<std::string>>,
                "verify(checks): the failed consistency conditions");
  static_assert(std::is_same_v<decltype(W::conditions()), std::vector<std::string>>,
                "conditions(): the names of the consistency conditions verify checks");
  static_assert(std::is_same_v<decltype(W::load_size(std::declval<const Config&>())), std::vector<TableLoad>>,
                "load_size(settings): its tables' rows and row bytes (exec/load_size.hpp)");
  static_assert(std::is_same_v<decltype(W::writes(std::declval<const Config&>())), bool>,
                "writes(settings): whether its transactions can write under them");
  static_assert(std::is_same_v<decltype(W::size_setting()), std::string>,
                "size_setting(): the setting that sizes its load, as section.field");
  static_assert(std::is_same_v<decltype(std::declval<const W&>().table_rows()), std::vector<TableRows>>,
                "table_rows() const: each table's rows at this instance");
  return true;
}

//! Runs a whole transaction in this instance (every part local) and commits it when it
//! succeeds and validates (occ); on abort or user rollback it is already undone.
template <class W, class CC>
TxnResult execute_whole(W& workload, typename W::Txn& txn, TxnContext& ctx, const CC& cc, std::uint64_t& checksum) {
  const TxnResult result = workload.execute_part(txn.words.data(), txn.words.size(), txn.rows, ctx, cc, checksum);
  if (!result.committed) return result;
  AbortReason reason;
  if (!cc.validate(ctx, reason)) {
    ctx.abort();
    return TxnResult::abort(reason);
  }
  ctx.commit();
  return result;
}

//! Whether workload W can execute a local transaction again from its words at recovery
//! (log.content = command): it has `std::size_t command_words(const std::uint64_t* words,
//! std::size_t n) const`, how many leading words a command keeps (0: log the rows), nonzero for
//! the transactions whose words and wall_seconds decide all they write and whose reads strict
//! 2PL orders in the log (no predicate over rows others insert); and `bool
//! expand_command(std::vector<std::uint64_t>& words) const`, which makes those words whole.
template <class W, class = void>
struct ReplaysCommands : std::false_type {};
template <class W>
struct ReplaysCommands<
    W, std::void_t<decltype(std::declval<const W&>().command_words(std::declval<const std::uint64_t*>(), std::size_t{})),
                   decltype(std::declval<const W&>().expand_command(std::declval<std::vector<std::uint64_t>&>()))>>
    : std::true_type {};

//! Whether workload W can tell a transaction all of whose operations are at its own instance
//! (it has `bool local_txn(const Txn&) const`; see Optional above).
template <class W, class = void>
struct TellsLocalTxn : std::false_type {};
template <class W>
struct TellsLocalTxn<W, std::void_t<decltype(std::declval<const W&>().local_txn(std::declval<const typename W::Txn&>()))>>
    : std::true_type {};

//! The split every workload shares: cuts `words`, a sequence of operations, into one part per
//! instance. op_at(at) returns {words of the operation starting at `at`, global site holding
//! its data}; a part goes to the site of its first operation.
template <class OpAt>
void split_operations(const std::vector<std::uint64_t>& words, const std::vector<std::uint32_t>& instance_of_site,
                      std::vector<TxnPart>& parts, OpAt&& op_at) {
  for (TxnPart& part : parts) part.clear();
  for (std::size_t at = 0; at < words.size();) {
    const std::pair<std::size_t, std::uint64_t> op = op_at(at);
    TxnPart& part = parts[instance_of_site[op.second]];
    if (part.empty()) part.site = static_cast<std::uint32_t>(op.second);
    part.words.insert(part.words.end(), words.begin() + static_cast<std::ptrdiff_t>(at),
                      words.begin() + static_cast<std::ptrdiff_t>(at + op.first));
    at += op.first;
  }
}

//! Whether every operation of `words` is at a site in [first_site, first_site + sites): with
//! op_at as split_operations takes it, a workload's local_txn for deployments.
template <class OpAt>
bool operations_within(const std::vector<std::uint64_t>& words, std::size_t first_site, std::size_t sites,
                       OpAt&& op_at) {
  for (std::size_t at = 0; at < words.size();) {
    const std::pair<std::size_t, std::uint64_t> op = op_at(at);
    if (op.second - first_site >= sites) return false;
    at += op.first;
  }
  return true;
}

}  // namespace islands
