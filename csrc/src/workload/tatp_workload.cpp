// The tatp workload's registry entry, in every build: its name, transactions, checks and
// settings' rules. Its engine variants (index × concurrency-control scheme) are compiled apart,
// in tatp_variants.cpp, which a build may leave out (CMake ISLANDS_WORKLOADS).
#include "islands/workload/tatp_workload.hpp"

#include "islands/exec/workload_entry.hpp"

namespace islands {

WorkloadEntry workload_entry_tatp() { return WorkloadEntryOf<TatpWorkload, &RunConfig::tatp>::entry("tatp"); }

}  // namespace islands
