// Every engine variant of the tpcc workload (index × concurrency-control scheme) is compiled
// here, in its own translation unit, and reaches the engine through its registry entry.
#include "islands/workload/tpcc_workload.hpp"

#include "islands/exec/workload_variants.hpp"

namespace islands {

WorkloadEntry workload_entry_tpcc() { return WorkloadVariants<TpccWorkload, &RunConfig::tpcc>::entry("tpcc"); }

}  // namespace islands
