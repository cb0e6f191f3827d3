#pragma once
#include <atomic>
#include <cstdint>
#include <limits>
#include <vector>

namespace islands {

//! One version of a PLP instance's routing table: the owner (local worker) of every routing
//! unit (exec/routing_unit.hpp) of the instance's sites. Immutable once published.
struct PlpRoute {
  //! The owner of a unit being moved: a transaction that needs it waits (see PlpRouting).
  static constexpr std::uint32_t kFrozen = std::numeric_limits<std::uint32_t>::max();
  std::uint64_t version = 0;         //!< 1 for the initial table, +1 per publication
  std::vector<std::uint32_t> owner;  //!< per unit (instance-local numbering): worker or kFrozen
};

//! The routing table as its readers see it: the version published last. The PLP routing
//! (exec/plp/plp_routing.hpp) publishes the versions; the client layer (exec/client_driver.hpp)
//! reads them to queue a request at its home unit's owner, without depending on exec/plp.
class RoutingTable {
 public:
  //! The table transactions route with now (acquire: what its owners wrote before is visible).
  const PlpRoute* current() const noexcept { return current_.load(std::memory_order_acquire); }

 protected:
  //! Makes `route` (kept alive by the publisher) the current table (release).
  void set_current(const PlpRoute* route) noexcept { current_.store(route, std::memory_order_release); }

 private:
  std::atomic<const PlpRoute*> current_{nullptr};
};

}  // namespace islands
