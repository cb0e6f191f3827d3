// Every engine variant of the tpcb workload (index × concurrency-control scheme), compiled here
// in a translation unit of its own and attached to its registry entry (tpcb_workload.cpp) by the
// registration unit CMake generates; a build may leave it out (CMake ISLANDS_WORKLOADS).
#include "islands/workload/tpcb_workload.hpp"

#include "islands/instance/workload_variants.hpp"

namespace islands {

void workload_variants_tpcb(WorkloadEntry& entry) { WorkloadVariants<TpcbWorkload, &RunConfig::tpcb>::attach(entry); }

}  // namespace islands
