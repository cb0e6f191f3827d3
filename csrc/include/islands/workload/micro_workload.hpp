#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <type_traits>
#include <vector>

#include "islands/cc/concurrency_control.hpp"
#include "islands/common/check.hpp"
#include "islands/common/config_error.hpp"
#include "islands/common/reciprocal_divider.hpp"
#include "islands/common/random.hpp"
#include "islands/common/zipf.hpp"
#include "islands/settings/engine_config.hpp"
#include "islands/exec/run_stats.hpp"
#include "islands/index/btree_index.hpp"
#include "islands/index/hash_index.hpp"
#include "islands/index/rooted_index.hpp"
#include "islands/storage/table.hpp"
#include "islands/txn/txn_context.hpp"
#include "islands/exec/client_driver.hpp"
#include "islands/exec/routing_unit.hpp"
#include "islands/settings/micro_config.hpp"
#include "islands/exec/txn_part.hpp"
#include "islands/exec/run_config.hpp"
#include "islands/exec/workload_interface.hpp"

namespace islands {

//! The microbenchmark's data (one table, one primary index over this instance's sites) and its
//! one-shot procedure. Under PLP with per-unit roots (engine.plp_index) the index has one
//! latch-free root per routing unit, the unit of each key being the one `locate` routes it to. Global site s holds keys [s * rows_per_site, (s + 1) * rows_per_site);
//! this instance holds global sites [first_site, first_site + sites) of total_sites.
//! A read-only transaction of an update mix (read_share) carries kReadOnly on every key
//! (keys stay below 2^63), so that each of its parts knows it reads.
template <class Index>
class MicroWorkload {
 public:
  //! The mark on every key of a read-only transaction of an update mix.
  static constexpr std::uint64_t kReadOnly = std::uint64_t{1} << 63;
  using IndexType = Index;   //!< the primary index structure
  using Config = MicroConfig;  //!< its settings
  //! One transaction's input, reused between transactions.
  struct Txn {
    std::vector<std::uint64_t> words;  //!< distinct keys, home-site key first
    std::vector<Row*> rows;            //!< scratch: the rows the keys resolve to
  };

  //! One transaction type.
  static std::vector<std::string> transaction_names() { return {"micro"}; }
  //! The settings, and a key range that fits 64 bits.
  static void validate_settings(const Config& config, const RunConfig&, std::uint64_t total_sites) {
    config.validate();
    if (static_cast<double>(config.rows_per_site) * static_cast<double>(total_sites) >= 9.0e18) {
      throw ConfigError("micro.rows_per_site", "the key range overflows 64 bits");
    }
  }

  //! Index bytes a key (the hash index's measured footprint, about 45, rounded up).
  static constexpr std::uint64_t kIndexBytesPerKey = 64;
  //! One table of rows_per_site rows a site, reserved exactly, one index key a row.
  static std::vector<TableLoad> load_size(const Config& config) {
    return {fixed_table("rows", config.columns, config.rows_per_site, kIndexBytesPerKey)};
  }
  //! Whether transactions can write: an update run's (its read-only share aside).
  static bool writes(const Config& config) { return config.update; }
  //! Its load grows with the rows of a site.
  static std::string size_setting() { return "micro.rows_per_site"; }
  //! The one table's rows at this instance.
  std::vector<TableRows> table_rows() const { return {table_rows_of("rows", table_)}; }

  MicroWorkload(const MicroConfig& config, const EngineConfig& engine, std::size_t sites,
                std::size_t first_site = 0, std::size_t total_sites = 0)
      : config_(config),
        engine_(engine),
        sites_(sites),
        first_site_(first_site),
        key_units_(config.rows_per_site),
        table_(sites, config.columns),
        index_(per_unit_index_roots(engine) ? sites * kUnitsPerSite : 1, sites * config.rows_per_site,
               Roots{ReciprocalDivider(config.rows_per_site), std::uint64_t{first_site} * kUnitsPerSite}),
        total_sites_(total_sites ? total_sites : sites),
        site_keys_(config.rows_per_site, config.zipf_s),
        all_keys_(total_sites_ * config.rows_per_site, config.zipf_s),
        other_keys_(total_sites_ > 1 ? (total_sites_ - 1) * config.rows_per_site : 1, config.zipf_s) {}

  //! Creates and indexes the rows of local site `site`; called by its owner (first touch).
  void load_site(std::size_t site) {
    const std::uint64_t first = (first_site_ + site) * config_.rows_per_site;
    table_.reserve(site, config_.rows_per_site);
    for (std::uint64_t k = first; k < first + config_.rows_per_site; ++k) {
      Row* row = table_.allocate(site, k);
      for (std::uint32_t c = 0; c < config_.columns; ++c) {
        row->columns()[c] = static_cast<std::int32_t>((k + c) % 1000);
      }
      const bool fresh = index_.insert(k, reinterpret_cast<std::uint64_t>(row));
      ISLANDS_CHECK(fresh, "micro key loaded twice");
    }
  }

  //! After every site is loaded: switch index latching to the run's setting (off in per-unit
  //! roots: only a unit's owner touches its root, see index/rooted_index.hpp).
  void finish_load(bool single_threaded) {
    index_.set_latching(engine_.latching && !single_threaded && !per_unit_index_roots(engine_));
  }

  //! Draws the next transaction of a worker whose home (global) site is `home`. A local one
  //! reads its rows from the home site. A multisite one (config.multisite of them) touches at
  //! least two sites whatever the skew, as paper 000 defines it: its first row is at home, its
  //! second at another site, drawn over every other site's rows with the skew (so the skew
  //! decides which site gets the remote requests: the hottest rows are at site 0, or site 1
  //! for site 0's workers), and the rest over the whole data range with the skew.
  void generate(Txn& txn, Random& rng, std::size_t home) const {
    const std::size_t n = config_.rows_per_txn;
    txn.words.clear();
    const bool multisite = config_.multisite > 0 && rng.unit() < config_.multisite;
    // Drawn only in a mix, so that runs without one draw what they always drew.
    const bool read_only = config_.read_share > 0 && rng.unit() < config_.read_share;
    const std::uint64_t site_base = home * config_.rows_per_site;
    txn.words.push_back(site_base + draw(site_keys_, rng));
    if (multisite && n > 1 && total_sites_ > 1) {
      const std::uint64_t other = draw(other_keys_, rng);  // a row of the other sites, in site order
      txn.words.push_back(other < site_base ? other : other + config_.rows_per_site);
    }
    while (txn.words.size() < n) {
      const std::uint64_t key = multisite
          ? pick_distinct(txn, all_keys_, 0, rng)
          : pick_distinct(txn, site_keys_, site_base, rng);
      txn.words.push_back(key);
    }
    if (read_only) {
      for (std::uint64_t& key : txn.words) key |= kReadOnly;
    }
  }

  //! A client's next home (driver.clients closed or open): a row drawn over the whole data range
  //! with the skew (the hottest rows at site 0), and the site that holds it.
  ClientHome client_home(Random& rng) const {
    const std::uint64_t key = draw(all_keys_, rng);
    return {key, static_cast<std::uint32_t>(key_units_.divide(key))};
  }

  //! The transaction of a client's request whose home row is `home`: that row first, the rest
  //! drawn as generate(txn, rng, home's site) draws them.
  void generate_at(Txn& txn, Random& rng, std::uint64_t home) const {
    const std::size_t site = key_units_.divide(home);
    generate(txn, rng, site);
    const std::uint64_t mark = txn.words[0] & kReadOnly;
    const std::uint64_t first = home | mark;
    for (std::size_t i = 1; i < txn.words.size(); ++i) {
      if (txn.words[i] == first) txn.words[i] = txn.words[0];  // keep the keys distinct
    }
    txn.words[0] = first;
  }

  //! Reads or updates the rows of keys[0, n) (all held by this instance) under `cc`, leaving
  //! locks and before-images in ctx for the caller to commit or, on failure, already undone.
  //! This is a transaction's local part; a distributed one keeps ctx until the decision.
  template <class CC>
  TxnResult access(const std::uint64_t* keys, std::size_t n, std::vector<Row*>& rows,
                   TxnContext& ctx, const CC& cc, std::uint64_t& checksum) {
    ComponentScope scope(ctx.clock(), Component::execution);
    rows.resize(n);
    const bool update = part_updates(keys, n);
    if (engine_.prefetch) {
      for (std::size_t i = 0; i < n; ++i) index_.prefetch(keys[i] & ~kReadOnly);
    }
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t value = 0;
      const bool found = index_.lookup(keys[i] & ~kReadOnly, value);
      ISLANDS_CHECK(found, "micro key missing from the index");
      Row* row = reinterpret_cast<Row*>(value);
      rows[i] = row;
      if (engine_.prefetch) {
        __builtin_prefetch(row, 1);
        __builtin_prefetch(reinterpret_cast<const char*>(row) + table_.row_stride() - 1, 1);
      }
    }
    const LockMode mode = update ? LockMode::exclusive : LockMode::shared;
    {
      // Every lock before any row is touched (a one-shot transaction knows its rows): without
      // locks there is no undo, so every row is checked before any changes; with locks, one
      // timed locking span per transaction instead of one per row.
      ComponentScope locking(ctx.clock(), Component::locking);
      AbortReason reason = AbortReason::lock_conflict;
      for (Row*& row : rows) {
        Row* image = cc.open(row, mode, ctx, reason, 0, config_.columns);  // to read or write
        if (!image) {
          if constexpr (CC::kLocks) ctx.abort();
          return TxnResult::abort(reason);
        }
        if constexpr (!CC::kInPlace) row = image;  // in place, the image is the row
      }
    }
    std::uint64_t sum = 0;
    for (Row* row : rows) {
      std::int32_t* columns = row->columns();
      if (update) {
        if constexpr (CC::kLocks && CC::kInPlace) ctx.save_before_image(row);
        for (std::uint32_t c = 0; c < config_.columns; ++c) columns[c] += 1;
        ctx.wrote(row);
      } else {
        for (std::uint32_t c = 0; c < config_.columns; ++c) sum += columns[c];
      }
    }
    checksum += sum;
    return TxnResult::commit();
  }

  //! Stages of the chain of dependent misses prefetch_ahead walks (exec/txn_lookahead.hpp):
  //! index slot, then row; none over a B+tree (its descent cannot be prefetched ahead).
  std::size_t prefetch_stages() const { return std::is_same_v<Index, HashIndex> ? 2 : 0; }
  //! Stage `stage` of a transaction drawn ahead (engine.interleave): 0 prefetches the index
  //! slots of its keys; 1 (the slots arrived meanwhile) reads them without latching
  //! (HashIndex::peek, a hint) and prefetches both ends of the rows they point to (for writing
  //! when the transaction updates, else for reading). Keys of
  //! other instances' sites are skipped; nothing is locked or changed.
  void prefetch_ahead(const Txn& txn, std::size_t stage) const {
    if constexpr (std::is_same_v<Index, HashIndex>) {
      const bool update = part_updates(txn.words.data(), txn.words.size());
      for (const std::uint64_t word : txn.words) {
        const std::uint64_t key = word & ~kReadOnly;
        if (!own_key(key)) continue;
        if (stage == 0) {
          index_.prefetch(key);
          continue;
        }
        std::uint64_t value = 0;
        if (!index_.peek(key, value)) continue;
        const char* row = reinterpret_cast<const char*>(value);
        if (update) {  // for writing: the line comes exclusive, as the update will need it
          __builtin_prefetch(row, 1);
          __builtin_prefetch(row + table_.row_stride() - 1, 1);
        } else {  // shared: other workers reading the row keep their copies
          __builtin_prefetch(row, 0);
          __builtin_prefetch(row + table_.row_stride() - 1, 0);
        }
      }
    } else {
      (void)txn;
      (void)stage;
    }
  }
  //! Bytes of this instance's rows and primary index (engine.interleave = -1 compares them
  //! with the last-level cache).
  std::size_t footprint_bytes() const {
    const std::size_t rows = sites_ * config_.rows_per_site;
    return Table::bytes_for(rows, config_.columns) + rows * 32;  // hash slots: 16 bytes, load <= 1/2
  }

  //! Splits a transaction's keys into one part per instance (`instance_of_site` maps global
  //! sites); a part goes to the site of its first key.
  void split(const Txn& txn, const std::vector<std::uint32_t>& instance_of_site,
             std::vector<TxnPart>& parts) const {
    split_operations(txn.words, instance_of_site, parts, [&](std::size_t at) {
      return std::pair<std::size_t, std::uint64_t>{1, site_of(txn.words[at] & ~kReadOnly)};
    });
  }
  //! The operation starting at word `at` of the `n` words of a transaction (or of an action
  //! cut from one): {its words, the routing unit holding its data} (exec/routing_unit.hpp;
  //! PLP routes by it).
  std::pair<std::size_t, std::uint64_t> locate(const std::uint64_t* words, std::size_t, std::size_t at) const {
    return {1, unit_of(words[at] & ~kReadOnly, key_units_)};
  }
  //! A part's keys executed here (see access).
  template <class CC>
  TxnResult execute_part(const std::uint64_t* words, std::size_t n, std::vector<Row*>& rows,
                         TxnContext& ctx, const CC& cc, std::uint64_t& checksum) {
    return access(words, n, rows, ctx, cc, checksum);
  }
  //! Whether a part changes data (an update run's part, unless its transaction reads only).
  bool part_updates(const std::uint64_t* words, std::size_t n) const {
    return config_.update && !(n > 0 && (words[0] & kReadOnly));
  }
  //! Whether a part another instance sent (a 2PC fragment) can be this instance's: every key
  //! is one of its sites' rows, and all or none carry kReadOnly. A key out of range would
  //! otherwise reach the index (an overwritten message; see exec/two_phase_commit.hpp).
  bool valid_part(const std::uint64_t* words, std::size_t n) const {
    const std::uint64_t mark = n > 0 ? words[0] & kReadOnly : 0;
    for (std::size_t i = 0; i < n; ++i) {
      if ((words[i] & kReadOnly) != mark || !own_key(words[i] & ~kReadOnly)) return false;
    }
    return true;
  }
  //! Whether every row of `txn` is at this instance's sites (the worker then runs it uncut;
  //! exec/workload_interface.hpp): two compares a row, where split divides and copies.
  bool local_txn(const Txn& txn) const {
    for (const std::uint64_t word : txn.words) {
      if (!own_key(word & ~kReadOnly)) return false;
    }
    return true;
  }
  //! Most words a part can hold (sizes fragments).
  std::size_t max_part_words() const { return config_.rows_per_txn; }
  //! Rows a committed transaction updated (statistics).
  std::size_t row_updates(const Txn& txn) const {
    return part_updates(txn.words.data(), txn.words.size()) ? txn.words.size() : 0;
  }
  std::size_t type_of(const Txn&) const { return 0; }  //!< one transaction type
  //! Widest row, in payload columns.
  std::size_t max_columns() const { return config_.columns; }
  //! Consistency figures over this instance's sites: the payload sum (see payload_sum).
  CheckFigures check_figures() const {
    return {{"payload_sum", payload_sum()}, {"index_roots", static_cast<std::int64_t>(index_.roots())},
            {"index_latched_roots", index_.latching() ? static_cast<std::int64_t>(index_.roots()) : 0}};
  }

  //! No figure is needed from the run's start.
  static std::vector<std::string> figures_at_start() { return {}; }
  //! Every committed update added 1 to column 0 of each row it updated: the payload sum grew
  //! by exactly the rows committed transactions updated (one condition).
  static std::vector<std::string> conditions() { return {"payload_sum_growth"}; }
  //! The condition, when `checks` violate it.
  static std::vector<std::string> verify(const CheckMap& checks) {
    const std::int64_t grew = figure(checks, "payload_sum_after") - figure(checks, "payload_sum_before");
    const std::int64_t rows = figure(checks, "committed_row_updates");
    if (grew == rows) return {};
    return {"micro: the payload sum grew by " + grouped(grew) + " but committed transactions updated " +
            grouped(rows) + " rows"};
  }

  //! Whether its writes are logged (redo captured, recovery and checkpoints supported).
  static constexpr bool kLogs = true;
  //! Calls f(row, columns) for every row of this instance (checkpoints).
  template <class F>
  void for_each_row(F&& f) const {
    for (std::size_t s = 0; s < sites_; ++s) table_.for_each_row(s, [&](const Row& row) { f(row, config_.columns); });
  }

  //! Recovery: overwrites the row of `key` with `image`; false when this instance holds no such
  //! row or the image has another width.
  bool redo(std::uint64_t key, const std::int32_t* image, std::size_t columns) {
    std::uint64_t value = 0;
    if (columns != config_.columns || !index_.lookup(key, value)) return false;
    std::memcpy(reinterpret_cast<Row*>(value)->columns(), image, 4 * columns);
    return true;
  }

  //! Recovery: micro never deletes a row, so no log holds a delete for it.
  bool redo_delete(std::uint64_t) { return false; }
  //! Recovery from a checkpoint: every row is loaded and overwritten by the snapshot; nothing to drop.
  void clear_for_snapshot() {}

  //! The global site that holds key.
  std::uint64_t site_of(std::uint64_t key) const { return key / config_.rows_per_site; }
  // Whether `key` is a row of this instance's sites [first_site_, first_site_ + sites_).
  bool own_key(std::uint64_t key) const {
    return key - std::uint64_t{first_site_} * config_.rows_per_site < std::uint64_t{sites_} * config_.rows_per_site;
  }
  //! Whether transactions update (else read) their rows.
  bool updates() const { return config_.update; }

  //! The same probes and row accesses with no transaction around them (engine-overhead
  //! baseline), each transaction's slots and rows prefetched first when `prefetch` (as
  //! access does under engine.prefetch); returns a checksum of what was read.
  std::uint64_t bare_access(Txn& txn, bool prefetch) {
    std::uint64_t checksum = 0;
    if (prefetch) {
      for (std::uint64_t key : txn.words) index_.prefetch(key & ~kReadOnly);
    }
    const std::size_t n = txn.words.size();
    txn.rows.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t value = 0;
      index_.lookup(txn.words[i] & ~kReadOnly, value);
      txn.rows[i] = reinterpret_cast<Row*>(value);
      if (prefetch) {
        __builtin_prefetch(txn.rows[i], 1);
        __builtin_prefetch(reinterpret_cast<const char*>(txn.rows[i]) + table_.row_stride() - 1, 1);
      }
    }
    const bool update = part_updates(txn.words.data(), n);
    for (Row* row : txn.rows) {
      std::int32_t* columns = row->columns();
      for (std::uint32_t c = 0; c < config_.columns; ++c) {
        if (update) {
          columns[c] += 1;
        } else {
          checksum += columns[c];
        }
      }
    }
    return checksum;
  }

  //! Sum of column 0 over every row (a consistency check: each committed update adds 1).
  std::int64_t payload_sum() const {
    std::int64_t sum = 0;
    for (std::size_t s = 0; s < sites_; ++s) {
      table_.for_each_row(s, [&](const Row& row) { sum += row.columns()[0]; });
    }
    return sum;
  }

  //! The root of a key: its routing unit (as locate gives it), from this instance's first unit.
  struct Roots {
    ReciprocalDivider rows_per_site;  //!< keys per site
    std::uint64_t first_unit;         //!< this instance's first routing unit
    //! The root number of key.
    std::size_t operator()(std::uint64_t key) const { return unit_of(key, rows_per_site) - first_unit; }
  };
  const RootedIndex<Index, Roots>& index() const { return index_; }  //!< the primary index

 private:
  // The routing unit of key: routing_unit(key / n, key % n, n) in one division (by
  // multiplication where exact), as site * U + (offset * U) / n == (key * U) / n when
  // key = site * n + offset and n = per_site keys; keys too large to multiply by U take the long way.
  static std::uint64_t unit_of(std::uint64_t key, const ReciprocalDivider& per_site) {
    if (key < (std::uint64_t{1} << 59)) return per_site.divide(key * kUnitsPerSite);
    const std::uint64_t n = per_site.divisor();
    return routing_unit(key / n, key % n, n);
  }

  std::uint64_t draw(const ZipfGenerator& keys, Random& rng) const {
    return config_.zipf_s > 0 ? keys.next(rng) : rng.below(keys.n());
  }

  // A key in base + [0, n) not yet in the transaction. Rejection keeps the distribution
  // exact; past 64 rejections (only under extreme skew) it walks to the next free key.
  std::uint64_t pick_distinct(const Txn& txn, const ZipfGenerator& keys, std::uint64_t base,
                              Random& rng) const {
    std::uint64_t key = base + draw(keys, rng);
    for (int tries = 0; contains(txn, key); ++tries) {
      key = tries < 64 ? base + draw(keys, rng) : base + (key - base + 1) % keys.n();
    }
    return key;
  }
  static bool contains(const Txn& txn, std::uint64_t key) {
    for (std::uint64_t k : txn.words) {
      if (k == key) return true;
    }
    return false;
  }

  MicroConfig config_;
  EngineConfig engine_;
  std::size_t sites_;
  std::size_t first_site_;
  ReciprocalDivider key_units_;  // divides by the keys per site (unit_of)
  Table table_;
  RootedIndex<Index, Roots> index_;
  std::size_t total_sites_;  // every instance's sites together
  ZipfGenerator site_keys_;
  ZipfGenerator all_keys_;
  ZipfGenerator other_keys_;  // the rows of every site but one (a multisite transaction's remote row)
};

}  // namespace islands
