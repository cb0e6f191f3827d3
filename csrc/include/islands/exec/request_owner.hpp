#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>

#include "islands/exec/client_queue.hpp"
#include "islands/exec/client_request_draw.hpp"
#include "islands/exec/routing_table.hpp"
#include "islands/exec/routing_unit.hpp"

namespace islands {

namespace detail {
template <class W, class = void>
struct HasHomeUnit : std::false_type {};
template <class W>
struct HasHomeUnit<W, std::void_t<decltype(std::declval<const W&>().home_unit(std::uint64_t{}))>> : std::true_type {};
}  // namespace detail

//! The routing unit of a client request's home (driver.clients under engine.execution = plp):
//! the workload's home_unit(home) where it has one (micro: its home row's unit, the first
//! operation of the transaction generate_at draws), else the unit of the first operation of
//! the transaction the request draws, generated into `scratch` (the unit a PLP hand-off routes
//! by: exec/plp/plp_handoff.hpp); the first unit of the request's site for an empty one.
template <class Workload>
std::uint64_t request_unit(const Workload& workload, const ClientRequest& request, typename Workload::Txn& scratch) {
  if constexpr (detail::HasHomeUnit<Workload>::value) {
    (void)scratch;
    return workload.home_unit(request.home);
  } else {
    generate_request(workload, scratch, request);
    if (scratch.words.empty()) return std::uint64_t{request.site} * kUnitsPerSite * routing_tables_of(workload);
    return workload.locate(scratch.words.data(), scratch.words.size(), 0).second;
  }
}

//! The PLP worker that owns the home unit of `request` under `route` (`first_unit`: the
//! instance's first unit): the worker that serves it, or PlpRoute::kFrozen while that unit is
//! being moved.
template <class Workload>
std::uint32_t request_owner(const Workload& workload, const ClientRequest& request, const PlpRoute& route,
                            std::uint64_t first_unit, typename Workload::Txn& scratch) {
  return route.owner[request_unit(workload, request, scratch) - first_unit];
}

}  // namespace islands
