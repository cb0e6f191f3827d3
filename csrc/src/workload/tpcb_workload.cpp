// The tpcb workload's registry entry, in every build: its name, transactions, checks and
// settings' rules. Its engine variants (index × concurrency-control scheme) are compiled apart,
// in tpcb_variants.cpp, which a build may leave out (CMake ISLANDS_WORKLOADS).
#include "islands/workload/tpcb_workload.hpp"

#include "islands/exec/workload_entry.hpp"

namespace islands {

WorkloadEntry workload_entry_tpcb() { return WorkloadEntryOf<TpcbWorkload, &RunConfig::tpcb>::entry("tpcb"); }

}  // namespace islands
