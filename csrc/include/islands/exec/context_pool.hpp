#pragma once
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "islands/storage/epoch_gate.hpp"
#include "islands/txn/txn_context.hpp"
#include "islands/txn/txn_history.hpp"

namespace islands {

//! A worker's transaction contexts, reused: both worker loops (InstanceWorker, PlpWorker)
//! take one per transaction or served action and give it back once it is committed or undone.
class ContextPool {
 public:
  //! A context: a spare one, or a new one for rows of up to `columns` columns that records
  //! its history into `history` (test mode; when `versions` is set) and announces itself to
  //! `reclaim` (when the workload deletes rows). It captures redo when `capture_redo`.
  std::unique_ptr<TxnContext> take(std::size_t columns, VersionMap* versions, HistorySink* history,
                                   EpochGate* reclaim, bool capture_redo) {
    std::unique_ptr<TxnContext> ctx;
    if (spare_.empty()) {
      ctx = std::make_unique<TxnContext>(columns);
      if (versions != nullptr) ctx->record_history(*versions, *history);
      if (reclaim != nullptr) ctx->reclaim_with(reclaim);
    } else {
      ctx = std::move(spare_.back());
      spare_.pop_back();
    }
    ctx->capture_redo(capture_redo);
    return ctx;
  }

  //! Keeps `ctx` (committed or undone) for a later take.
  void put(std::unique_ptr<TxnContext> ctx) { spare_.push_back(std::move(ctx)); }

 private:
  std::vector<std::unique_ptr<TxnContext>> spare_;
};

}  // namespace islands
