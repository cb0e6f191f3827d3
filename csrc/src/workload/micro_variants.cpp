// Every engine variant of the micro workload (index × concurrency-control scheme), compiled here
// in a translation unit of its own and attached to its registry entry (micro_workload.cpp) by the
// registration unit CMake generates; a build may leave it out (CMake ISLANDS_WORKLOADS).
#include "islands/workload/micro_workload.hpp"

#include "islands/instance/workload_variants.hpp"

namespace islands {

void workload_variants_micro(WorkloadEntry& entry) { WorkloadVariants<MicroWorkload, &RunConfig::micro>::attach(entry); }

}  // namespace islands
