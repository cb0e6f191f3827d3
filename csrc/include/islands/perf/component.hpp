#pragma once
#include <cstddef>

namespace islands {

//! Where a worker's time goes (paper 000, Fig 13, 15 and 26). Code marks its spans with a
//! ComponentScope on the transaction's clock (TxnContext::clock()), once per phase of a
//! transaction rather than per row, so that a timed transaction stays close to an untimed
//! one: the workload marks execution and its lock acquisition, TxnContext its lock release,
//! the instance its messaging, and the log (when there is one) its own writes.
enum class Component : unsigned char {
  management,     //!< transaction management: begin, commit bookkeeping, retries, the driver
  execution,      //!< transaction execution: index probes, reading and writing rows
  communication,  //!< messages: building, sending, polling, waiting for votes
  locking,        //!< the lock manager: acquiring and releasing row locks
  logging,        //!< the log (hook: the log marks its own scopes)
};
inline constexpr std::size_t kNumComponents = 5;  //!< entries of Component

//! The component's name as results call it.
const char* component_name(Component component);

}  // namespace islands
