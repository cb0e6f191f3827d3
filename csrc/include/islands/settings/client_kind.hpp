#pragma once
#include "islands/common/enum_names.hpp"

namespace islands {

//! Who submits an instance's transactions (driver.clients), chosen at run time.
//! workers: every worker is its own closed-loop client, drawing each transaction at its own
//! site (per-site locality: a shared-everything instance's workers never share a site; islands
//! before issue 47, kept as a named option).
//! instance_wide: every worker is its own closed-loop client, drawing each transaction's home
//! site uniformly over its instance's sites, so any worker of an instance serves any of its
//! requests (the papers' Shore-MT load: one instance over the whole database draws over all of
//! it; one single-threaded instance per core draws at its site, as with workers). No queue on
//! the way (exec/instance_worker.hpp); not with engine.execution = plp.
//! closed: driver.client_count clients apart from the workers draw each transaction's home
//! over the whole database (the workload's skew decides which rows, and so which instance) and
//! submit it to the queue of the instance that owns its home; each waits for its answer and
//! driver.think_us before it submits the next (exec/client_driver.hpp).
//! open: transactions arrive at driver.offered_rate per second in all (Poisson), drawn and
//! routed as in closed, whether or not earlier ones are answered.
enum class ClientKind { workers, closed, open, instance_wide };

template <>
struct EnumNames<ClientKind> {
  static constexpr EnumName<ClientKind> table[] = {
      {ClientKind::workers, "workers"},
      {ClientKind::closed, "closed"},
      {ClientKind::open, "open"},
      {ClientKind::instance_wide, "instance_wide"}};
};

//! Whether clients apart from the workers submit requests through the instances' queues
//! (closed, open: exec/client_driver.hpp), rather than every worker drawing its own.
constexpr bool routes_requests(ClientKind kind) { return kind == ClientKind::closed || kind == ClientKind::open; }

}  // namespace islands
