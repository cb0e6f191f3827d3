// The micro workload's registry entry, in every build: its name, transactions, checks and
// settings' rules. Its engine variants (index × concurrency-control scheme) are compiled apart,
// in micro_variants.cpp, which a build may leave out (CMake ISLANDS_WORKLOADS).
#include "islands/workload/micro_workload.hpp"

#include "islands/instance/workload_variants.hpp"

namespace islands {

WorkloadEntry workload_entry_micro() { return WorkloadVariants<MicroWorkload, &RunConfig::micro>::entry("micro"); }

}  // namespace islands
