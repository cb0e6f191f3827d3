// Every engine variant of the tpcc workload (index × concurrency-control scheme), compiled here
// in a translation unit of its own and attached to its registry entry (tpcc_workload.cpp) by the
// registration unit CMake generates; a build may leave it out (CMake ISLANDS_WORKLOADS).
#include "islands/workload/tpcc_workload.hpp"

#include "islands/instance/workload_variants.hpp"

namespace islands {

void workload_variants_tpcc(WorkloadEntry& entry) { WorkloadVariants<TpccWorkload, &RunConfig::tpcc>::attach(entry); }

}  // namespace islands
