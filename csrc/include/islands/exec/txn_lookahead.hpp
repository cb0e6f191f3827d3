#pragma once
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "islands/settings/engine_config.hpp"

namespace islands {

//! Whether workload type W can bring a transaction's data toward the cache ahead of executing
//! it, one stage of its chain of dependent misses per call (engine.interleave): it has
//!   std::size_t prefetch_stages() const;                   stages (0: nothing to prefetch ahead)
//!   void prefetch_ahead(const Txn&, std::size_t stage) const;   issues stage `stage` (a hint only)
//!   std::size_t footprint_bytes() const;                   its data's bytes (the auto depth)
template <class W, class = void>
struct PrefetchesAhead : std::false_type {};
template <class W>
struct PrefetchesAhead<W, std::void_t<decltype(std::declval<const W&>().prefetch_ahead(
                                          std::declval<const typename W::Txn&>(), std::size_t{})),
                                      decltype(std::declval<const W&>().prefetch_stages()),
                                      decltype(std::declval<const W&>().footprint_bytes())>> : std::true_type {};

//! The depth engine.interleave = -1 (auto) picks for an instance whose data (rows and index)
//! takes `footprint_bytes`: 4 (the constant in src/exec/txn_lookahead.cpp) where that outgrows
//! the last-level cache
//! (common/system_memory.hpp), else 0 (cache-resident data has no misses to overlap, and the
//! pipeline's second look at each key would only cost); 0 when the cache size is unknown.
std::size_t auto_interleave_depth(std::size_t footprint_bytes);

//! Memory-level parallelism across transactions (engine.interleave): a software pipeline that
//! draws a worker's transactions `depth` ahead of the one it executes and walks each drawn one
//! down its chain of dependent misses, one stage per transaction executed (group prefetching
//! across transactions, as AMAC and interleaved lookups do within one index). For the
//! microbenchmark over a hash index the chain is index slot -> row: stage 0 prefetches a new
//! transaction's slots; stage 1, some transactions later (its slots arrived meanwhile), reads
//! them and prefetches the rows they point to; when its turn comes its rows are in the cache.
//! The misses of several transactions are then in flight at once, where one transaction's own
//! prefetch overlaps only the misses of one level.
//!
//! What it changes: only when a transaction is drawn (earlier, with the same generator and in
//! the same order) and which prefetches are issued. Every transaction is executed, checked,
//! counted and recorded exactly as without it, one after the other, in the order drawn, under
//! its concurrency control as before (its locks taken when it executes, none ahead); a
//! prefetch is a hint and never changes a result. The transactions still in the pipeline when
//! the run stops were drawn but never submitted: they are dropped, counted nowhere.
//!
//! Stage s of a transaction runs when it is distance(s) transactions from its execution:
//! ceil(depth * (stages - s) / stages), so stage 0 runs when it is drawn (at distance depth)
//! and the last stage at distance >= 1: each stage once, in order, before the transaction is
//! handed out. Depth 0 (off) draws each transaction when it is needed, as without the pipeline.
template <class Workload>
class TxnLookahead {
 public:
  using Txn = typename Workload::Txn;  //!< the workload's transaction

  //! A pipeline of `depth` transactions for `workload` (0: off, and off whatever the depth for
  //! a workload that cannot prefetch ahead or names no stage).
  TxnLookahead(const Workload& workload, std::size_t depth) : workload_(workload) {
    if constexpr (PrefetchesAhead<Workload>::value) {
      const std::size_t stages = workload.prefetch_stages();
      if (stages == 0) depth = 0;
      ring_.resize(depth);
      for (std::size_t s = 0; s < stages && depth > 0; ++s) {
        distances_.push_back((depth * (stages - s) + stages - 1) / stages);
      }
    } else {
      (void)depth;
    }
  }

  //! The pipeline engine.interleave asks of a worker over `workload`: its depth when
  //! engine.prefetch is on (-1: auto_interleave_depth of the workload's footprint), 0 otherwise.
  TxnLookahead(const Workload& workload, const EngineConfig& engine)
      : TxnLookahead(workload, configured_depth(workload, engine)) {}

  //! Transactions drawn ahead of the one executing (0: off).
  std::size_t depth() const { return ring_.size(); }
  //! The distance at which each stage runs, by stage (empty when off).
  const std::vector<std::size_t>& distances() const { return distances_; }

  //! The next transaction into `out`: the oldest in the pipeline (its every stage issued), or,
  //! when off, drawn now by draw(Txn&). Draws one transaction into the pipeline in its place
  //! and advances the others one stage.
  template <class Draw>
  void next(Txn& out, Draw&& draw) {
    const std::size_t depth = ring_.size();
    if (depth == 0) {
      draw(out);
      return;
    }
    if (!primed_) prime(draw);
    std::swap(out, ring_[head_]);  // the oldest goes out; its slot takes the newest
    draw(ring_[head_]);
    head_ = head_ + 1 == depth ? 0 : head_ + 1;
    // ring_[(head_ + j) % depth] is now j + 1 transactions from its execution.
    for (std::size_t s = 0; s < distances_.size(); ++s) {
      std::size_t at = head_ + distances_[s] - 1;
      if (at >= depth) at -= depth;
      issue(ring_[at], s);
    }
  }

 private:
  static std::size_t configured_depth(const Workload& workload, const EngineConfig& engine) {
    if (!engine.prefetch || engine.interleave == 0) return 0;
    if (engine.interleave > 0) return static_cast<std::size_t>(engine.interleave);
    if constexpr (PrefetchesAhead<Workload>::value) {
      if (workload.prefetch_stages() == 0) return 0;
      return auto_interleave_depth(workload.footprint_bytes());
    } else {
      (void)workload;
      return 0;
    }
  }

  // The first call: draws `depth` transactions, ring_[j] as if it had come through the
  // pipeline to distance j + 1 (every stage at that distance or beyond issued, in order).
  template <class Draw>
  void prime(Draw& draw) {
    for (std::size_t j = 0; j < ring_.size(); ++j) {
      draw(ring_[j]);
      for (std::size_t s = 0; s < distances_.size(); ++s) {
        if (distances_[s] > j) issue(ring_[j], s);
      }
    }
    head_ = 0;
    primed_ = true;
  }

  void issue(const Txn& txn, std::size_t stage) {
    if constexpr (PrefetchesAhead<Workload>::value) {
      workload_.prefetch_ahead(txn, stage);
    } else {
      (void)txn;
      (void)stage;
    }
  }

  const Workload& workload_;
  std::vector<Txn> ring_;                // the transactions drawn ahead, oldest at head_
  std::vector<std::size_t> distances_;   // by stage
  std::size_t head_ = 0;
  bool primed_ = false;
};

}  // namespace islands
