#pragma once
#include "islands/common/enum_names.hpp"

namespace islands {

//! How one instance executes its transactions (engine.execution), chosen at run time.
//! shared_everything: any worker touches any row; a transaction runs whole on the worker that
//! drew it (today's 1ISL, "centralized shared-everything" in paper 002).
//! plp: physiological partitioning (paper 002 Sec III-A, data-oriented execution): every
//! table is range-partitioned on its routing key (the workload's sites: micro key ranges,
//! TPC-B branches, TATP subscribers, TPC-C warehouses), each partition owned by one pinned
//! worker that alone touches it; a transaction becomes one action per partition it needs,
//! routed to the owners' in-process queues (exec/plp/plp_worker.hpp).
enum class ExecutionKind { shared_everything, plp };

template <>
struct EnumNames<ExecutionKind> {
  static constexpr EnumName<ExecutionKind> table[] = {{ExecutionKind::shared_everything, "shared_everything"},
                                                      {ExecutionKind::plp, "plp"}};
};

}  // namespace islands
