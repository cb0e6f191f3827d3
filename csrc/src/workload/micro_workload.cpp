// The micro workload's registry entry, in every build: its name, transactions, checks and
// settings' rules. Its engine variants (index × concurrency-control scheme) are compiled apart,
// in micro_variants.cpp, which a build may leave out (CMake ISLANDS_WORKLOADS).
#include "islands/workload/micro_workload.hpp"

#include "islands/exec/workload_entry.hpp"

namespace islands {

WorkloadEntry workload_entry_micro() { return WorkloadEntryOf<MicroWorkload, &RunConfig::micro>::entry("micro"); }

}  // namespace islands
