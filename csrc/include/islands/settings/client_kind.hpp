#pragma once
#include "islands/common/enum_names.hpp"

namespace islands {

//! Who submits an instance's transactions (driver.clients), chosen at run time.
//! workers: every worker is its own closed-loop client, drawing each transaction at its own
//! site (the papers' drivers and islands before the client layer; kept for comparison).
//! closed: driver.client_count clients apart from the workers draw each transaction's home
//! over the whole database (the workload's skew decides which rows, and so which instance) and
//! submit it to the queue of the instance that owns its home; each waits for its answer and
//! driver.think_us before it submits the next (exec/client_driver.hpp).
//! open: transactions arrive at driver.offered_rate per second in all (Poisson), drawn and
//! routed as in closed, whether or not earlier ones are answered.
enum class ClientKind { workers, closed, open };

template <>
struct EnumNames<ClientKind> {
  static constexpr EnumName<ClientKind> table[] = {
      {ClientKind::workers, "workers"}, {ClientKind::closed, "closed"}, {ClientKind::open, "open"}};
};

}  // namespace islands
