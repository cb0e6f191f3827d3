// The tpcc workload's registry entry, in every build: its name, transactions, checks and
// settings' rules. Its engine variants (index × concurrency-control scheme) are compiled apart,
// in tpcc_variants.cpp, which a build may leave out (CMake ISLANDS_WORKLOADS).
#include "islands/workload/tpcc_workload.hpp"

#include "islands/exec/workload_entry.hpp"

namespace islands {

WorkloadEntry workload_entry_tpcc() { return WorkloadEntryOf<TpccWorkload, &RunConfig::tpcc>::entry("tpcc"); }

}  // namespace islands
