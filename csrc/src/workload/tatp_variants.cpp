// Every engine variant of the tatp workload (index × concurrency-control scheme), compiled here
// in a translation unit of its own and attached to its registry entry (tatp_workload.cpp) by the
// registration unit CMake generates; a build may leave it out (CMake ISLANDS_WORKLOADS).
#include "islands/workload/tatp_workload.hpp"

#include "islands/instance/workload_variants.hpp"

namespace islands {

void workload_variants_tatp(WorkloadEntry& entry) { WorkloadVariants<TatpWorkload, &RunConfig::tatp>::attach(entry); }

}  // namespace islands
