#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "islands/exec/plp/plp_routing.hpp"
#include "islands/exec/routing_unit.hpp"
#include "islands/exec/txn_part.hpp"

namespace islands {

//! Whether workload W has operations that consume data other operations of their transaction
//! produce: it declares `bool consumes(const std::uint64_t* words, std::size_t n, std::size_t at)
//! const` (the operation at word `at`) and an execute_part taking an ActionIo*
//! (exec/action_io.hpp). A workload without it is cut into one stage, as always.
template <class W, class = void>
struct HasStages : std::false_type {};
template <class W>
struct HasStages<W, std::void_t<decltype(std::declval<const W&>().consumes(std::declval<const std::uint64_t*>(),
                                                                            std::size_t{}, std::size_t{}))>>
    : std::true_type {};

//! The action graph of a PLP transaction (002 Fig 7), cut per (partition, stage).
//!
//! Stage 0 holds every operation that consumes nothing; stage 1 the consuming ones. A
//! transaction needs stage 1 only when it has a consuming operation and its operations span
//! several partitions: on one partition every row the consumer reads is its own, and it runs
//! whole in one action as ever (the local fast path stays the local fast path). With two
//! stages the coordinator runs stage 0's actions (remote ones through the bus, its own in
//! place), waits for them all at a first rendezvous, where each returns what its operations
//! produced, and hands the concatenation of those records to every stage-1 action as its
//! input; a second rendezvous, then the one commit decision. A partition with actions in both
//! stages runs them in one context (its locks and undo kept from the first to the decision).
//!
//! stage_split cuts `txn` by the owners in `route` (`first_unit`: the instance's first unit)
//! into `first` (stage 0, one part per worker) and, when a second stage is needed, `second`
//! (stage 1; otherwise left empty). Returns the stages (1 or 2), or 0 when an operation's unit
//! is frozen (the parts are then unspecified). With one stage `first` is exactly route_split's
//! cut. Each part keeps its operations in the transaction's order; a part's site is that of
//! its first operation.
template <class Workload>
unsigned stage_split(const Workload& workload, const typename Workload::Txn& txn, const PlpRoute& route,
                     std::uint64_t first_unit, std::vector<TxnPart>& first, std::vector<TxnPart>& second,
                     std::uint64_t tables = 1) {
  for (TxnPart& part : second) part.clear();
  if (!route_split(workload, txn, route, first_unit, first, tables)) return 0;
  std::size_t touched = 0;
  for (const TxnPart& part : first) touched += !part.empty();
  if (touched < 2) return 1;
  const std::vector<std::uint64_t>& words = txn.words;
  bool consumer = false;
  for (std::size_t at = 0; at < words.size() && !consumer;) {
    consumer = workload.consumes(words.data(), words.size(), at);
    at += workload.locate(words.data(), words.size(), at).first;
  }
  if (!consumer) return 1;
  for (TxnPart& part : first) part.clear();
  for (std::size_t at = 0; at < words.size();) {
    const std::pair<std::size_t, std::uint64_t> op = workload.locate(words.data(), words.size(), at);
    const std::uint32_t owner = route.owner[op.second - first_unit];  // not frozen: route_split saw it
    TxnPart& part = (workload.consumes(words.data(), words.size(), at) ? second : first)[owner];
    if (part.empty()) part.site = static_cast<std::uint32_t>(site_of_unit(op.second, tables));
    part.words.insert(part.words.end(), words.begin() + static_cast<std::ptrdiff_t>(at),
                      words.begin() + static_cast<std::ptrdiff_t>(at + op.first));
    at += op.first;
  }
  return 2;
}

}  // namespace islands
