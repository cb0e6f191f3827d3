#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
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
#include "islands/common/reciprocal_divider.hpp"
#include "islands/settings/engine_config.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/index/btree_index.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/index/rooted_index.hpp"
#include "islands/perf/component_clock.hpp"
#include "islands/storage/table.hpp"
#include "islands/txn/txn_context.hpp"
#include "islands/settings/tatp_config.hpp"
#include "islands/exec/txn_part.hpp"
#include "islands/exec/workload_change.hpp"
#include "islands/exec/run_config.hpp"
#include "islands/exec/workload_interface.hpp"

namespace islands {

//! TATP's data and its seven transactions (see TatpConfig). Every row is keyed by its
//! subscriber, so every transaction runs on one site (the worker's own). One index holds all
//! four tables, the table number in the key's top byte, plus the secondary index from
//! sub_nbr to the subscriber row. Call_Forwarding rows are inserted and deleted at run time:
//! a row once created stays in the index and its `present` column says whether it exists,
//! so inserts and deletes are ordinary updates that the before-images undo and the log's
//! after-images redo (recovery creates a call-forwarding row it has not loaded). Subscribers
//! are never inserted or deleted, so the sub_nbr index the load builds stays right. Under PLP
//! with per-unit roots (engine.plp_index) the index has one latch-free root per routing unit:
//! every key, the sub_nbr entry included, lives in its subscriber's unit, where `locate`
//! routes every transaction on that subscriber (index/rooted_index.hpp).
//!
//! Tables routed apart (engine.plp_units = per_table, under PLP): each of the four tables'
//! rows of a subscriber range is a routing unit of its own (exec/routing_unit.hpp), so a
//! transaction is written as one operation per table it touches, each with a header word
//! (type | table << 8 | words << 16): UpdateSubscriberData is a Special_Facility operation
//! (whose missing row is the expected rollback) then a Subscriber one, GetNewDestination a
//! Special_Facility and a Call_Forwarding read, Insert/DeleteCallForwarding a Subscriber read
//! (by sub_nbr) then the other tables' operations. Every operation that can roll back comes
//! before any that writes, so an action never writes before its own rollback; a rollback at
//! one owner aborts the others' actions (the coordinator's decision). Each key lives in the
//! root of its own table's unit.
template <class Index>
class TatpWorkload {
 public:
  using IndexType = Index;    //!< the primary index structure
  using Config = TatpConfig;  //!< its settings

  //! The seven transactions, by type number.
  static std::vector<std::string> transaction_names() { return {kTatpTxnNames.begin(), kTatpTxnNames.end()}; }
  //! The settings; inserts need index latching when several workers share the instance.
  static void validate_settings(const Config& config, const RunConfig& run, std::uint64_t total_sites) {
    config.validate();
    if (!run.engine.latching && run.driver.cpus.size() > 1 && run.engine.cc != CcKind::table_2pl) {
      throw ConfigError("engine.latching", std::string("tatp inserts index keys while it runs, so an instance of ") +
                                        std::to_string(run.driver.cpus.size()) +
                                        " workers needs index latching (or table_2pl, whose locks exclude them)");
    }
    if (static_cast<double>(config.subscribers_per_site) * static_cast<double>(total_sites) >= 1.0e12) {
      throw ConfigError("tatp.subscribers_per_site", "the deployment would hold 10^12 subscribers or more");
    }
  }
  //! Its writes are logged (redo captured, recovery and checkpoints supported).
  static constexpr bool kLogs = true;

  //! Subscriber: bit_1..10 packed (0), hex_1..10 (1-10), byte2_1..10 (11-20), msc_location
  //! (21), vlr_location (22), s_id (23-24).
  static constexpr std::uint32_t kSubscriberColumns = 25;
  //! Access_Info: data1, data2, data3, data4 (0-3), s_id (4-5).
  static constexpr std::uint32_t kAccessColumns = 6;
  //! Special_Facility: is_active, error_cntrl, data_a, data_b (0-3), s_id (4-5).
  static constexpr std::uint32_t kFacilityColumns = 6;
  //! Call_Forwarding: present, end_time, numberx (2-3), s_id (4-5).
  static constexpr std::uint32_t kForwardingColumns = 6;

  enum TxnType : std::uint64_t {
    kGetSubscriberData, kGetNewDestination, kGetAccessData, kUpdateSubscriberData,
    kUpdateLocation, kInsertCallForwarding, kDeleteCallForwarding
  };
  enum Tag : std::uint64_t { kSubscriber = 1, kSubNbr = 2, kAccess = 3, kFacility = 4, kForwarding = 5 };
  //! The tables as routed apart (engine.plp_units = per_table): their numbers.
  enum RoutedTable : std::uint64_t { kSubscriberTable, kAccessTable, kFacilityTable, kForwardingTable, kTables };

  //! One transaction: [type, s_id, a, b, c, d] (see generate).
  struct Txn {
    std::vector<std::uint64_t> words;
    std::vector<Row*> rows;  //!< scratch
  };

  //! Index bytes a key (the hash index's measured footprint with its up-front table, about
  //! 95, rounded up).
  static constexpr std::uint64_t kIndexBytesPerKey = 100;
  //! A site's subscribers (reserved exactly; two index keys each, s_id and sub_nbr), 1-4
  //! Access_Info and 1-4 Special_Facility rows a subscriber and 0-3 Call_Forwarding rows a
  //! facility (drawn: their means), one key a row.
  static std::vector<TableLoad> load_size(const Config& config) {
    const std::uint64_t n = config.subscribers_per_site;
    const double subscribers = static_cast<double>(n);
    return {fixed_table("subscriber", kSubscriberColumns, n, 2 * kIndexBytesPerKey),
            drawn_table("access_info", kAccessColumns, 2.5 * subscribers, n, 4 * n, kIndexBytesPerKey),
            drawn_table("special_facility", kFacilityColumns, 2.5 * subscribers, n, 4 * n, kIndexBytesPerKey),
            drawn_table("call_forwarding", kForwardingColumns, 3.75 * subscribers, 0, 12 * n, kIndexBytesPerKey)};
  }
  //! Whether its mix can write (taken as yes: every mix but a read-only one does).
  static bool writes(const Config&) { return true; }
  //! Its load grows with the subscribers of a site.
  static std::string size_setting() { return "tatp.subscribers_per_site"; }
  //! Each table's rows at this instance.
  std::vector<TableRows> table_rows() const {
    return {table_rows_of("subscriber", subscribers_), table_rows_of("access_info", access_),
            table_rows_of("special_facility", facilities_), table_rows_of("call_forwarding", forwarding_)};
  }

  TatpWorkload(const TatpConfig& config, const EngineConfig& engine, std::size_t sites,
               std::size_t first_site = 0, std::size_t total_sites = 0)
      : config_(config),
        engine_(engine),
        sites_(sites),
        first_site_(first_site),
        tables_(engine.execution == ExecutionKind::plp && engine.plp_units == PlpUnitsKind::per_table ? std::uint64_t{kTables} : 1),
        draw_(std::make_unique<LiveParams<Draw>>(make_draw(config, sites))),
        subscribers_(sites, kSubscriberColumns),
        access_(sites, kAccessColumns),
        facilities_(sites, kFacilityColumns),
        forwarding_(sites, kForwardingColumns),
        index_(per_unit_index_roots(engine) ? sites * kUnitsPerSite * tables_ : 1, sites * config.subscribers_per_site * 10,
               Roots{ReciprocalDivider(config.subscribers_per_site), std::uint64_t{first_site} * kUnitsPerSite * tables_,
                     tables_}) {
    (void)total_sites;
    config_.validate();
  }

  //! Creates and indexes the rows of local site `site` (first touch by its owner): per
  //! subscriber 1-4 Access_Info and 1-4 Special_Facility rows of distinct types, and 0-3
  //! Call_Forwarding rows per facility at distinct start times (0, 8, 16).
  void load_site(std::size_t site) {
    Random rng(0x7a7bULL + first_site_ + site);
    const std::uint64_t first = (first_site_ + site) * config_.subscribers_per_site;
    subscribers_.reserve(site, config_.subscribers_per_site);
    for (std::uint64_t s = first; s < first + config_.subscribers_per_site; ++s) {
      Row* sub = add(subscribers_, site, key(kSubscriber, s, 0));
      std::int32_t* c = sub->columns();
      c[0] = static_cast<std::int32_t>(rng.below(1 << 10));
      for (int i = 1; i <= 20; ++i) c[i] = static_cast<std::int32_t>(rng.below(i <= 10 ? 16 : 256));
      c[21] = static_cast<std::int32_t>(rng.below(1u << 31));
      c[22] = static_cast<std::int32_t>(rng.below(1u << 31));
      set64(sub, 23, s);
      insert_index(key(kSubNbr, sub_nbr(s), 0), sub);
      for (std::uint64_t type : distinct_types(rng, 1 + rng.below(4))) {
        Row* ai = add(access_, site, key(kAccess, s, type));
        for (int i = 0; i < 4; ++i) ai->columns()[i] = static_cast<std::int32_t>(rng.below(256));
        set64(ai, 4, s);
      }
      for (std::uint64_t type : distinct_types(rng, 1 + rng.below(4))) {
        Row* sf = add(facilities_, site, key(kFacility, s, type));
        sf->columns()[0] = rng.below(100) < 85 ? 1 : 0;
        sf->columns()[1] = static_cast<std::int32_t>(rng.below(256));
        sf->columns()[2] = static_cast<std::int32_t>(rng.below(256));
        sf->columns()[3] = static_cast<std::int32_t>(rng.below(1u << 31));
        set64(sf, 4, s);
        for (std::uint64_t slot : distinct_types(rng, rng.below(4), 3)) {
          Row* cf = add(forwarding_, site, key(kForwarding, s, (type << 2) | slot));
          cf->columns()[0] = 1;
          cf->columns()[1] = static_cast<std::int32_t>(8 * slot + 1 + rng.below(8));
          set64(cf, 2, rng.below(1000000000000000ULL));
          set64(cf, 4, s);
        }
      }
    }
  }

  //! After every site is loaded: switch index latching to the run's setting.
  //! (Off in per-unit roots: only a unit's owner touches its root, see index/rooted_index.hpp.)
  void finish_load(bool single_threaded) {
    index_.set_latching(engine_.latching && !single_threaded && !per_unit_index_roots(engine_));
  }

  //! Draws the next transaction of a worker whose home (global) site is `home`: its type by
  //! the mix, a subscriber of that site (or, with skew, of the hot or the cold subscribers of
  //! the instance), the rest as the specification says. The mix and skew are those in force
  //! (change() may replace them between two calls).
  void generate(Txn& txn, Random& rng, std::size_t home) const {
    const Draw& draw = draw_->read();
    std::uint64_t pick = rng.below(100), type = 0;
    while (pick >= draw.weights[type]) pick -= draw.weights[type++];
    const std::uint64_t population = config_.subscribers_per_site;
    const std::uint64_t s =
        draw.hot != 0 ? skewed_subscriber(draw, rng)
                      : home * population +
                            (config_.uniform_ids() ? rng.below(population) : tatp_nonuniform_id(rng, population));
    const std::uint64_t sf_type = 1 + rng.below(4);
    const std::uint64_t start = 8 * rng.below(3);
    switch (type) {
      case kGetNewDestination:
        txn.words = {type, s, sf_type, start, start + 1 + rng.below(8)};
        break;
      case kGetAccessData:
        txn.words = {type, s, 1 + rng.below(4)};
        break;
      case kUpdateSubscriberData:
        txn.words = {type, s, sf_type, rng.below(2), rng.below(256)};
        break;
      case kUpdateLocation:
        txn.words = {type, sub_nbr(s), rng.below(1u << 31)};
        break;
      case kInsertCallForwarding:
        txn.words = {type, sub_nbr(s), sf_type, start, start + 1 + rng.below(8), rng.below(1000000000000000ULL)};
        break;
      case kDeleteCallForwarding:
        txn.words = {type, sub_nbr(s), sf_type, start};
        break;
      default:
        txn.words = {type, s};
    }
    if (tables_ > 1) to_table_operations(txn.words, s);
  }

  //! Tables routed apart: 4 (engine.plp_units = per_table under PLP), else 1.
  std::uint64_t routing_tables() const { return tables_; }
  //! A bit per routed table (RoutedTable) the settings' mix touches (1 when tables share units).
  std::uint64_t used_routing_tables() const {
    if (tables_ == 1) return 1;
    // per type: GetSubData, GetNewDest, GetAccData, UpdSubData, UpdLocation, InsertCF, DeleteCF
    static constexpr std::uint64_t kTouches[kTatpTxnTypes] = {0b0001, 0b1100, 0b0010, 0b0101, 0b0001, 0b1101, 0b1001};
    const auto weights = parse_tatp_mix(config_.mix);
    std::uint64_t used = 0;
    for (std::size_t t = 0; t < kTatpTxnTypes; ++t) {
      if (weights[t] != 0) used |= kTouches[t];
    }
    return used;
  }


  //! Replaces the mix and skew the generators draw from (the fields `change` gives) while
  //! workers draw; ConfigError("tatp.<field>", ...) as the settings would refuse the result,
  //! and then nothing changes. Callers serialize changes (PlpControl holds its lock).
  void change(const WorkloadChange& change) {
    TatpConfig next = draw_->read().config;
    if (change.mix) next.mix = *change.mix;
    if (change.hot_fraction) next.hot_fraction = *change.hot_fraction;
    if (change.hot_share) next.hot_share = *change.hot_share;
    draw_->publish(make_draw(next, sites_));
  }
  //! The settings the generators draw from now (mix, hot_fraction, hot_share as changed).
  const TatpConfig& drawing() const { return draw_->read().config; }

  //! Every TATP transaction runs where its subscriber is: one part, on that site.
  void split(const Txn& txn, const std::vector<std::uint32_t>& instance_of_site,
             std::vector<TxnPart>& parts) const {
    split_operations(txn.words, instance_of_site, parts, [&](std::size_t) {
      return std::pair<std::size_t, std::uint64_t>{txn.words.size(), site_of(txn)};
    });
  }
  //! Whether `txn`'s subscriber is at this instance's sites (the worker runs it uncut).
  bool local_txn(const Txn& txn) const { return site_of(txn) - first_site_ < sites_; }
  //! The global site of `txn`'s subscriber, where all of it runs.
  std::uint64_t site_of(const Txn& txn) const { return subscriber_of(txn.words.data()) / config_.subscribers_per_site; }
  //! The operation starting at word `at` of the `n` words of a transaction (or of an action
  //! cut from one): {its words, the routing unit holding its data} (exec/routing_unit.hpp;
  //! PLP routes by it).
  std::pair<std::size_t, std::uint64_t> locate(const std::uint64_t* words, std::size_t n, std::size_t at) const {
    const std::uint64_t per_site = config_.subscribers_per_site;
    if (tables_ > 1) {  // one operation per table (to_table_operations)
      const std::uint64_t* op = words + at;
      const std::uint64_t s = subscriber_of(op);
      return {op_words(op[0]), routing_unit(s / per_site, s % per_site, per_site, op_table(op[0]), tables_)};
    }
    const std::uint64_t s = subscriber_of(words);
    return {n, routing_unit(s / per_site, s % per_site, per_site)};
  }

  //! Whether a part changes data.
  bool part_updates(const std::uint64_t* words, std::size_t) const { return op_type(words[0]) >= kUpdateSubscriberData; }
  std::size_t max_part_words() const { return tables_ > 1 ? 11 : 6; }  //!< sizes fragments
  //! Rows a committed transaction updated (statistics).
  std::size_t row_updates(const Txn& txn) const {
    const std::uint64_t type = op_type(txn.words[0]);
    return type == kUpdateSubscriberData ? 2 : type >= kUpdateLocation ? 1 : 0;
  }
  std::size_t max_columns() const { return kSubscriberColumns; }  //!< widest row
  std::size_t type_of(const Txn& txn) const { return op_type(txn.words[0]); }  //!< index into kTatpTxnNames

  //! Executes one transaction; every row is found and locked, and every condition checked,
  //! before any is changed, so a user rollback leaves nothing to undo. On abort or rollback
  //! the locks are already released.
  template <class CC>
  TxnResult execute_part(const std::uint64_t* w, std::size_t n, std::vector<Row*>&, TxnContext& ctx,
                         const CC& cc, std::uint64_t& checksum) {
    ISLANDS_CHECK(n >= 2, "an empty TATP transaction");
    ComponentScope execution(ctx.clock(), Component::execution);
    AbortReason reason = AbortReason::lock_conflict;
    const auto fail = [&](bool user) {
      if constexpr (CC::kLocks) ctx.abort();
      return user ? TxnResult::rollback() : TxnResult::abort(reason);
    };
    // The image of a row to read or write (cc.open: the row itself once locked, a private copy
    // under occ), nullptr on conflict. table_2pl locks the row's table (its key's tag);
    // latch-free, table 0 holds every table (they share the primary index), taken before the
    // first probe.
    const auto open = [&](Row* row, LockMode mode) {
      const std::uint32_t tag = static_cast<std::uint32_t>(row->key >> 56);
      return cc.open(row, mode, ctx, reason, engine_.latching ? tag : 0, columns_of(tag));
    };
    if (!engine_.latching && !cc.lock_table(0, part_updates(w, n) ? LockMode::exclusive : LockMode::shared, ctx, reason)) {
      return fail(false);
    }
    if (tables_ > 1) {  // one operation per table: each must pass
      for (std::size_t at = 0; at < n; at += op_words(w[at])) {
        const OpOutcome outcome = execute_operation<CC>(w + at, open, checksum, ctx);
        if (outcome != OpOutcome::done) return fail(outcome == OpOutcome::rollback);
      }
      return TxnResult::commit();
    }
    switch (w[0]) {
      case kGetSubscriberData: {
        const Row* sub = open(find(key(kSubscriber, w[1], 0)), LockMode::shared);
        if (!sub) return fail(false);
        for (std::uint32_t c = 0; c < kSubscriberColumns; ++c) checksum += static_cast<std::uint32_t>(sub->columns()[c]);
        return TxnResult::commit();
      }
      case kGetNewDestination: {
        // SF (s, sf_type) active, joined with its CF rows starting at or before start and
        // ending after end: at most one per start slot.
        Row* sf = find(key(kFacility, w[1], w[2]));
        if (!sf) return fail(true);
        if (!(sf = open(sf, LockMode::shared))) return fail(false);
        if (sf->columns()[0] != 1) return fail(true);
        bool any = false;
        for (std::uint64_t slot = 0; slot * 8 <= w[3]; ++slot) {
          Row* cf = find(key(kForwarding, w[1], (w[2] << 2) | slot));
          if (!cf) continue;
          if (!(cf = open(cf, LockMode::shared))) return fail(false);
          if (cf->columns()[0] == 1 && static_cast<std::uint64_t>(cf->columns()[1]) > w[4]) {
            checksum += get64(cf, 2);
            any = true;
          }
        }
        return any ? TxnResult::commit() : fail(true);
      }
      case kGetAccessData: {
        Row* ai = find(key(kAccess, w[1], w[2]));
        if (!ai) return fail(true);
        if (!(ai = open(ai, LockMode::shared))) return fail(false);
        for (int i = 0; i < 4; ++i) checksum += static_cast<std::uint32_t>(ai->columns()[i]);
        return TxnResult::commit();
      }
      case kUpdateSubscriberData: {
        Row* sub = find(key(kSubscriber, w[1], 0));
        Row* sf = find(key(kFacility, w[1], w[2]));
        if (!sf) return fail(true);  // no such facility: the specification's expected failure
        if (!(sub = open(sub, LockMode::exclusive)) || !(sf = open(sf, LockMode::exclusive))) return fail(false);
        save<CC>(ctx, sub, kSubscriberColumns);
        save<CC>(ctx, sf, kFacilityColumns);
        sub->columns()[0] = static_cast<std::int32_t>((sub->columns()[0] & ~1) | static_cast<std::int32_t>(w[3]));
        sf->columns()[2] = static_cast<std::int32_t>(w[4]);
        ctx.wrote(sub, 1);  // bit_1 is in column 0
        ctx.wrote(sf, 3);   // data_a is column 2
        return TxnResult::commit();
      }
      case kUpdateLocation: {
        Row* sub = find(key(kSubNbr, w[1], 0));
        ISLANDS_CHECK(sub != nullptr, "TATP sub_nbr missing from the secondary index");
        if (!(sub = open(sub, LockMode::exclusive))) return fail(false);
        save<CC>(ctx, sub, kSubscriberColumns);
        sub->columns()[22] = static_cast<std::int32_t>(w[2]);
        ctx.wrote(sub, 23);  // vlr_location is column 22
        return TxnResult::commit();
      }
      case kInsertCallForwarding: {
        Row* sub = find(key(kSubNbr, w[1], 0));
        ISLANDS_CHECK(sub != nullptr, "TATP sub_nbr missing from the secondary index");
        if (!(sub = open(sub, LockMode::shared))) return fail(false);
        const std::uint64_t s = static_cast<std::uint64_t>(get64(sub, 23));
        Row* sf = find(key(kFacility, s, w[2]));
        if (!sf) return fail(true);  // foreign key: no such facility
        if (!open(sf, LockMode::shared)) return fail(false);
        Row* cf = open(find_or_create_forwarding(s, (w[2] << 2) | (w[3] / 8)), LockMode::exclusive);
        if (!cf) return fail(false);
        if (cf->columns()[0] == 1) return fail(true);  // primary key: already there
        save<CC>(ctx, cf, kForwardingColumns);
        cf->columns()[0] = 1;
        cf->columns()[1] = static_cast<std::int32_t>(w[4]);
        set64(cf, 2, w[5]);
        ctx.wrote(cf, kForwardingColumns);  // the whole row: recovery may have to create it
        return TxnResult::commit();
      }
      case kDeleteCallForwarding: {
        Row* sub = find(key(kSubNbr, w[1], 0));
        ISLANDS_CHECK(sub != nullptr, "TATP sub_nbr missing from the secondary index");
        if (!(sub = open(sub, LockMode::shared))) return fail(false);
        const std::uint64_t s = static_cast<std::uint64_t>(get64(sub, 23));
        Row* cf = find(key(kForwarding, s, (w[2] << 2) | (w[3] / 8)));
        if (!cf) return fail(true);
        if (!(cf = open(cf, LockMode::exclusive))) return fail(false);
        if (cf->columns()[0] != 1) return fail(true);  // no such row
        save<CC>(ctx, cf, kForwardingColumns);
        cf->columns()[0] = 0;
        ctx.wrote(cf, 1);  // present is column 0
        return TxnResult::commit();
      }
      default:
        ISLANDS_CHECK(false, "an unknown TATP transaction type");
    }
    return TxnResult::commit();
  }

  //! Calls f(row, columns) for every row of this instance (checkpoints): call-forwarding rows
  //! absent at the time (present = 0) too, so that a loaded row deleted before the checkpoint
  //! stays deleted after recovery from it.
  template <class F>
  void for_each_row(F&& f) const {
    for (std::size_t s = 0; s < sites_; ++s) {
      subscribers_.for_each_row(s, [&](const Row& row) { f(row, kSubscriberColumns); });
      access_.for_each_row(s, [&](const Row& row) { f(row, kAccessColumns); });
      facilities_.for_each_row(s, [&](const Row& row) { f(row, kFacilityColumns); });
      forwarding_.for_each_row(s, [&](const Row& row) {
        if (!row.deleted()) f(row, kForwardingColumns);
      });
    }
  }

  //! Recovery: overwrites the row of `key` (its first `columns` columns); a call-forwarding row
  //! this instance has not loaded is created from its whole image. False for a key of another
  //! instance or no table, or an image wider than its row.
  bool redo(std::uint64_t key, const std::int32_t* image, std::size_t columns) {
    const std::uint64_t tag = key >> 56;
    std::size_t width = 0;
    switch (tag) {
      case kSubscriber: width = kSubscriberColumns; break;
      case kAccess: width = kAccessColumns; break;
      case kFacility: width = kFacilityColumns; break;
      case kForwarding: width = kForwardingColumns; break;
      default: return false;
    }
    if (columns > width) return false;
    Row* row = find(key);
    if (!row && tag == kForwarding && columns == width) {
      const std::uint64_t s = (key >> 8) & ((std::uint64_t{1} << 48) - 1);
      const std::uint64_t site = s / config_.subscribers_per_site;
      if (site < first_site_ || site >= first_site_ + sites_) return false;
      row = find_or_create_forwarding(s, key & 0xff);
    }
    if (!row) return false;
    std::memcpy(row->columns(), image, 4 * columns);
    return true;
  }
  //! Recovery: TATP logs a call-forwarding delete as its `present` column (an after-image),
  //! so no log holds a delete entry for it.
  bool redo_delete(std::uint64_t) { return false; }
  //! Recovery from a checkpoint: no row ever leaves a table (a deleted call forwarding is
  //! present = 0, and the snapshot holds it so), so the snapshot overwrites every loaded row
  //! and creates the rest; nothing to drop.
  void clear_for_snapshot() {}

  //! Referential-integrity figures over this instance's sites, all 0 when consistent: rows
  //! whose subscriber (or facility, for call forwarding) is missing, subscribers with other
  //! than 1-4 access-info or facility rows, facilities with more than 3 call-forwarding rows,
  //! subscribers the sub_nbr index does not lead back to; plus each table's rows.
  //! No figure is needed from the run's start.
  static std::vector<std::string> figures_at_start() { return {}; }
  //! Referential integrity and the sub_nbr index: every count of violations is 0 (one
  //! condition each, named as its figure).
  static std::vector<std::string> conditions() {
    return {"access_info_orphans", "special_facility_orphans", "call_forwarding_orphans",
            "subscribers_bad_access_info", "subscribers_bad_facilities", "facilities_over_3_forwardings",
            "sub_nbr_index_mismatches"};
  }
  //! The conditions `checks` violate.
  static std::vector<std::string> verify(const CheckMap& checks) {
    std::vector<std::string> failures;
    for (const std::string& name : conditions()) {
      if (figure(checks, name) == 0) continue;
      std::string words = name;
      for (char& c : words) c = c == '_' ? ' ' : c;
      failures.push_back("tatp: " + words + ": " + grouped(figure(checks, name)));
    }
    return failures;
  }

  CheckFigures check_figures() const {
    std::int64_t subs = 0, ais = 0, sfs = 0, cfs = 0;
    std::int64_t ai_orphans = 0, sf_orphans = 0, cf_orphans = 0, bad_ai = 0, bad_sf = 0, bad_cf = 0, bad_nbr = 0;
    std::unordered_map<std::uint64_t, int> ai_count, sf_count, cf_count;
    for (std::size_t site = 0; site < sites_; ++site) {
      access_.for_each_row(site, [&](const Row& r) {
        ++ais;
        ++ai_count[static_cast<std::uint64_t>(get64(&r, 4))];
        if (!find(key(kSubscriber, static_cast<std::uint64_t>(get64(&r, 4)), 0))) ++ai_orphans;
      });
      facilities_.for_each_row(site, [&](const Row& r) {
        ++sfs;
        ++sf_count[static_cast<std::uint64_t>(get64(&r, 4))];
        if (!find(key(kSubscriber, static_cast<std::uint64_t>(get64(&r, 4)), 0))) ++sf_orphans;
      });
      forwarding_.for_each_row(site, [&](const Row& r) {
        if (r.deleted() || r.columns()[0] != 1) return;
        ++cfs;
        const std::uint64_t s = static_cast<std::uint64_t>(get64(&r, 4));
        const std::uint64_t type = (r.key & 0xff) >> 2;
        ++cf_count[(s << 3) | type];
        if (!find(key(kFacility, s, type))) ++cf_orphans;
      });
    }
    for (std::size_t site = 0; site < sites_; ++site) {
      subscribers_.for_each_row(site, [&](const Row& r) {
        ++subs;
        const std::uint64_t s = static_cast<std::uint64_t>(get64(&r, 23));
        const auto a = ai_count.find(s), f = sf_count.find(s);
        if (a == ai_count.end() || a->second > 4) ++bad_ai;
        if (f == sf_count.end() || f->second > 4) ++bad_sf;
        if (find(key(kSubNbr, sub_nbr(s), 0)) != &r) ++bad_nbr;
      });
    }
    for (const auto& [facility, count] : cf_count) {
      if (count > 3) ++bad_cf;
    }
    return {{"subscriber_rows", subs},          {"access_info_rows", ais},
            {"special_facility_rows", sfs},     {"call_forwarding_rows", cfs},
            {"access_info_orphans", ai_orphans}, {"special_facility_orphans", sf_orphans},
            {"call_forwarding_orphans", cf_orphans}, {"subscribers_bad_access_info", bad_ai},
            {"subscribers_bad_facilities", bad_sf},  {"facilities_over_3_forwardings", bad_cf},
            {"sub_nbr_index_mismatches", bad_nbr},
            {"index_roots", static_cast<std::int64_t>(index_.roots())},
            {"index_latched_roots", index_.latching() ? static_cast<std::int64_t>(index_.roots()) : 0}};
  }

  //! The root of a key: its subscriber's routing unit (as locate gives it; a sub_nbr entry's
  //! subscriber is recovered from the number), from this instance's first unit.
  struct Roots {
    ReciprocalDivider per_site;  //!< subscribers per site
    std::uint64_t first_unit;    //!< this instance's first routing unit
    std::uint64_t tables = 1;    //!< tables routed apart (engine.plp_units): a key's root is its table's unit
    //! The root number of key.
    std::size_t operator()(std::uint64_t k) const {
      std::uint64_t s = (k >> 8) & ((std::uint64_t{1} << 48) - 1);
      if ((k >> 56) == kSubNbr) s = subscriber_of_nbr(s);
      if (tables > 1) {
        const std::uint64_t n = per_site.divisor();
        return routing_unit(s / n, s % n, n, table_of_tag(k >> 56), tables) - first_unit;
      }
      return per_site.divide(s * kUnitsPerSite) - first_unit;  // routing_unit(s / n, s % n, n) in one step
    }
  };

 private:

  // Table tag in the top byte, subscriber id in the middle, a table's sub-key in the low byte.
  static std::uint64_t key(std::uint64_t tag, std::uint64_t s, std::uint64_t sub) {
    return (tag << 56) | (s << 8) | sub;
  }
  // The subscriber number: the specification's 15-digit string of s_id, as its number, made
  // distinct from s_id itself so that the secondary index is a real second mapping.
  static std::uint64_t sub_nbr(std::uint64_t s) { return s ^ 0x5a5a5a5aULL; }
  static std::uint64_t subscriber_of_nbr(std::uint64_t nbr) { return nbr ^ 0x5a5a5a5aULL; }
  std::uint64_t subscriber_of(const std::uint64_t* w) const {
    if (w[0] >= kOpHeader) {  // an operation of a transaction on tables routed apart: only Subscriber's go by sub_nbr
      return op_table(w[0]) == kSubscriberTable && op_type(w[0]) >= kUpdateLocation ? subscriber_of_nbr(w[1]) : w[1];
    }
    return w[0] >= kUpdateLocation ? subscriber_of_nbr(w[1]) : w[1];
  }

  // Tables routed apart: an operation's header word, type | table << 8 | words << 16 (at least
  // kOpHeader: every operation has two words or more, so a whole transaction's first word,
  // its type, is always below).
  static constexpr std::uint64_t kOpHeader = std::uint64_t{2} << 16;
  static std::uint64_t op(std::uint64_t type, std::uint64_t table, std::uint64_t words) {
    return type | (table << 8) | (words << 16);
  }
  static std::uint64_t op_type(std::uint64_t header) { return header & 0xff; }
  static std::uint64_t op_table(std::uint64_t header) { return (header >> 8) & 0xff; }
  static std::size_t op_words(std::uint64_t header) { return static_cast<std::size_t>((header >> 16) & 0xff); }
  // The routed table of an index key's tag (a sub_nbr entry is its subscriber's).
  static std::uint64_t table_of_tag(std::uint64_t tag) {
    switch (tag) {
      case kAccess: return kAccessTable;
      case kFacility: return kFacilityTable;
      case kForwarding: return kForwardingTable;
      default: return kSubscriberTable;
    }
  }

  // Rewrites a transaction drawn whole ([type, s or sub_nbr, args]) as its operations per
  // table, the ones that may roll back first (see the class comment); `s` its subscriber.
  static void to_table_operations(std::vector<std::uint64_t>& w, std::uint64_t s) {
    std::array<std::uint64_t, 6> t{};  // the whole transaction: 6 words at most
    std::copy(w.begin(), w.end(), t.begin());
    switch (t[0]) {
      case kGetSubscriberData:
        w = {op(t[0], kSubscriberTable, 2), s};
        break;
      case kGetNewDestination:  // [type, s, sf_type, start, end]
        w = {op(t[0], kFacilityTable, 3), s, t[2], op(t[0], kForwardingTable, 5), s, t[2], t[3], t[4]};
        break;
      case kGetAccessData:  // [type, s, ai_type]
        w = {op(t[0], kAccessTable, 3), s, t[2]};
        break;
      case kUpdateSubscriberData:  // [type, s, sf_type, bit, data_a]
        w = {op(t[0], kFacilityTable, 4), s, t[2], t[4], op(t[0], kSubscriberTable, 3), s, t[3]};
        break;
      case kUpdateLocation:  // [type, sub_nbr, vlr]
        w = {op(t[0], kSubscriberTable, 3), t[1], t[2]};
        break;
      case kInsertCallForwarding:  // [type, sub_nbr, sf_type, start, end, numberx]
        w = {op(t[0], kSubscriberTable, 2), t[1], op(t[0], kFacilityTable, 3), s, t[2],
             op(t[0], kForwardingTable, 6), s, t[2], t[3], t[4], t[5]};
        break;
      case kDeleteCallForwarding:  // [type, sub_nbr, sf_type, start]
        w = {op(t[0], kSubscriberTable, 2), t[1], op(t[0], kForwardingTable, 4), s, t[2], t[3]};
        break;
      default:
        ISLANDS_CHECK(false, "an unknown TATP transaction type");
    }
  }

  enum class OpOutcome { done, conflict, rollback };
  // One operation of a transaction on tables routed apart (to_table_operations), on its one
  // table; `open` as in execute_part.
  template <class CC, class Open>
  OpOutcome execute_operation(const std::uint64_t* o, Open& open, std::uint64_t& checksum, TxnContext& ctx) {
    using Outcome = OpOutcome;
    const std::uint64_t type = op_type(o[0]), table = op_table(o[0]);
    if (table == kSubscriberTable) {
      const bool by_nbr = type >= kUpdateLocation;
      Row* sub = find(by_nbr ? key(kSubNbr, o[1], 0) : key(kSubscriber, o[1], 0));
      ISLANDS_CHECK(sub != nullptr, "TATP subscriber missing from the index");
      const bool write = type == kUpdateSubscriberData || type == kUpdateLocation;
      if (!(sub = open(sub, write ? LockMode::exclusive : LockMode::shared))) return Outcome::conflict;
      if (type == kGetSubscriberData) {
        for (std::uint32_t c = 0; c < kSubscriberColumns; ++c) checksum += static_cast<std::uint32_t>(sub->columns()[c]);
      } else if (type == kUpdateSubscriberData) {  // [h, s, bit]
        save<CC>(ctx, sub, kSubscriberColumns);
        sub->columns()[0] = static_cast<std::int32_t>((sub->columns()[0] & ~1) | static_cast<std::int32_t>(o[2]));
        ctx.wrote(sub, 1);
      } else if (type == kUpdateLocation) {  // [h, sub_nbr, vlr]
        save<CC>(ctx, sub, kSubscriberColumns);
        sub->columns()[22] = static_cast<std::int32_t>(o[2]);
        ctx.wrote(sub, 23);
      }
      return Outcome::done;
    }
    if (table == kAccessTable) {  // GetAccessData [h, s, ai_type]
      Row* ai = find(key(kAccess, o[1], o[2]));
      if (!ai) return Outcome::rollback;
      if (!(ai = open(ai, LockMode::shared))) return Outcome::conflict;
      for (int i = 0; i < 4; ++i) checksum += static_cast<std::uint32_t>(ai->columns()[i]);
      return Outcome::done;
    }
    if (table == kFacilityTable) {  // [h, s, sf_type (, data_a)]
      Row* sf = find(key(kFacility, o[1], o[2]));
      if (!sf) return Outcome::rollback;  // no such facility: the specification's expected failure
      const bool write = type == kUpdateSubscriberData;
      if (!(sf = open(sf, write ? LockMode::exclusive : LockMode::shared))) return Outcome::conflict;
      if (type == kGetNewDestination && sf->columns()[0] != 1) return Outcome::rollback;
      if (write) {
        save<CC>(ctx, sf, kFacilityColumns);
        sf->columns()[2] = static_cast<std::int32_t>(o[3]);
        ctx.wrote(sf, 3);
      }
      return Outcome::done;
    }
    // Call_Forwarding: [h, s, sf_type, start (, end (, numberx))]
    if (type == kGetNewDestination) {
      bool any = false;
      for (std::uint64_t slot = 0; slot * 8 <= o[3]; ++slot) {
        Row* cf = find(key(kForwarding, o[1], (o[2] << 2) | slot));
        if (!cf) continue;
        if (!(cf = open(cf, LockMode::shared))) return Outcome::conflict;
        if (cf->columns()[0] == 1 && static_cast<std::uint64_t>(cf->columns()[1]) > o[4]) {
          checksum += get64(cf, 2);
          any = true;
        }
      }
      return any ? Outcome::done : Outcome::rollback;
    }
    if (type == kInsertCallForwarding) {
      Row* cf = open(find_or_create_forwarding(o[1], (o[2] << 2) | (o[3] / 8)), LockMode::exclusive);
      if (!cf) return Outcome::conflict;
      if (cf->columns()[0] == 1) return Outcome::rollback;  // primary key: already there
      save<CC>(ctx, cf, kForwardingColumns);
      cf->columns()[0] = 1;
      cf->columns()[1] = static_cast<std::int32_t>(o[4]);
      set64(cf, 2, o[5]);
      ctx.wrote(cf, kForwardingColumns);
      return Outcome::done;
    }
    Row* cf = find(key(kForwarding, o[1], (o[2] << 2) | (o[3] / 8)));  // DeleteCallForwarding
    if (!cf) return Outcome::rollback;
    if (!(cf = open(cf, LockMode::exclusive))) return Outcome::conflict;
    if (cf->columns()[0] != 1) return Outcome::rollback;
    save<CC>(ctx, cf, kForwardingColumns);
    cf->columns()[0] = 0;
    ctx.wrote(cf, 1);
    return Outcome::done;
  }

  static std::vector<std::uint64_t> distinct_types(Random& rng, std::uint64_t n, std::uint64_t of = 4) {
    std::vector<std::uint64_t> all;
    for (std::uint64_t t = 0; t < of; ++t) all.push_back(of == 4 ? t + 1 : t);
    for (std::uint64_t i = 0; i < n; ++i) std::swap(all[i], all[i + rng.below(of - i)]);
    all.resize(n);
    return all;
  }

  Row* add(Table& table, std::size_t site, std::uint64_t k) {
    Row* row = table.allocate(site, k);
    insert_index(k, row);
    return row;
  }
  void insert_index(std::uint64_t k, Row* row) {
    const bool fresh = index_.insert(k, reinterpret_cast<std::uint64_t>(row));
    ISLANDS_CHECK(fresh, "TATP key loaded twice");
  }
  Row* find(std::uint64_t k) const {
    std::uint64_t value = 0;
    return index_.lookup(k, value) ? reinterpret_cast<Row*>(value) : nullptr;
  }
  // The call-forwarding row of (s, slot), created absent (present = 0) if it never existed.
  // Creating one changes nothing a reader can see, so it is never undone.
  Row* find_or_create_forwarding(std::uint64_t s, std::uint64_t slot) {
    const std::uint64_t k = key(kForwarding, s, slot);
    if (Row* row = find(k)) return row;
    const std::size_t site = s / config_.subscribers_per_site - first_site_;
    Row* row = forwarding_.allocate(site, k);
    set64(row, 4, s);
    if (index_.insert(k, reinterpret_cast<std::uint64_t>(row))) return row;
    row->key = Row::kDeletedKey;  // another worker created it first: use theirs
    return find(k);
  }
  // A before-image, where writes are in place (none keeps them too: a distributed part under
  // it runs 2PL, and it is what TATP always did).
  template <class CC>
  static void save(TxnContext& ctx, Row* row, std::uint32_t columns) {
    if constexpr (CC::kInPlace) ctx.save_before_image(row, columns);
  }
  // Payload columns of a row of table `tag` (a sub_nbr entry points to a subscriber row).
  static std::size_t columns_of(std::uint64_t tag) {
    switch (tag) {
      case kAccess: return kAccessColumns;
      case kFacility: return kFacilityColumns;
      case kForwarding: return kForwardingColumns;
      default: return kSubscriberColumns;
    }
  }

  static std::int64_t get64(const Row* row, std::size_t column) {
    std::int64_t v;
    std::memcpy(&v, row->columns() + column, sizeof v);
    return v;
  }
  static void set64(Row* row, std::size_t column, std::uint64_t v) { std::memcpy(row->columns() + column, &v, sizeof v); }

  // What generate draws from: the settings (as changed), their mix's weights, and how many
  // of the instance's subscribers are hot (0: no skew).
  struct Draw {
    TatpConfig config;
    std::array<std::uint32_t, kTatpTxnTypes> weights;
    std::uint64_t hot;
  };
  static Draw make_draw(const TatpConfig& config, std::size_t sites) {
    config.validate();
    const double population = static_cast<double>(config.subscribers_per_site) * static_cast<double>(sites);
    const std::uint64_t hot =
        config.hot_fraction > 0 ? std::max<std::uint64_t>(1, static_cast<std::uint64_t>(config.hot_fraction * population)) : 0;
    return Draw{config, parse_tatp_mix(config.mix), hot};
  }
  // Skew: a hot_share of the draws among the instance's first `hot` subscribers, the rest
  // among the others (all hot when there are no others).
  std::uint64_t skewed_subscriber(const Draw& draw, Random& rng) const {
    const std::uint64_t first = first_site_ * config_.subscribers_per_site;
    const std::uint64_t cold = sites_ * config_.subscribers_per_site - draw.hot;
    if (cold == 0 || rng.unit() < draw.config.hot_share) return first + rng.below(draw.hot);
    return first + draw.hot + rng.below(cold);
  }

  TatpConfig config_;
  EngineConfig engine_;
  std::size_t sites_;
  std::size_t first_site_;
  std::uint64_t tables_;  // tables routed apart: kTables (engine.plp_units = per_table under PLP) or 1
  std::unique_ptr<LiveParams<Draw>> draw_;  // swapped whole by change(); generate reads it
  Table subscribers_, access_, facilities_, forwarding_;
  RootedIndex<Index, Roots> index_;
};

}  // namespace islands
