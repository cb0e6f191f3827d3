#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>

#include "islands/common/random.hpp"
#include "islands/exec/client_queue.hpp"

namespace islands {

//! Where a client's transaction lives: the workload's home (micro: its first row's key; a
//! workload without client_home: the site) and the global site that owns it.
struct ClientHome {
  std::uint64_t home = 0;  //!< passed back to the workload's generate_at (or generate)
  std::uint32_t site = 0;  //!< the global site that owns it: its instance serves the request
};

namespace detail {
template <class W, class = void>
struct HasClientHome : std::false_type {};
template <class W>
struct HasClientHome<W, std::void_t<decltype(std::declval<const W&>().client_home(std::declval<Random&>()))>>
    : std::true_type {};
}  // namespace detail

//! Draws a client's next home over the whole database: the workload's client_home(rng) where it
//! has one (its own distribution, skew included), else a site drawn uniformly.
template <class Workload>
ClientHome draw_client_home(const Workload& workload, Random& rng, std::uint32_t total_sites) {
  if constexpr (detail::HasClientHome<Workload>::value) {
    return workload.client_home(rng);
  } else {
    const auto site = static_cast<std::uint32_t>(rng.below(total_sites));
    return {site, site};
  }
}

//! Draws the transaction of `request` into txn: the workload's generate_at(txn, rng, home)
//! where it has one, else generate(txn, rng, site), from the request's seed.
template <class Workload>
void generate_request(const Workload& workload, typename Workload::Txn& txn, const ClientRequest& request) {
  Random rng(request.seed);
  if constexpr (detail::HasClientHome<Workload>::value) {
    workload.generate_at(txn, rng, request.home);
  } else {
    workload.generate(txn, rng, request.site);
  }
}

}  // namespace islands
