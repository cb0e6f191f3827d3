// Every engine variant of the tpcb workload (index × concurrency-control scheme) is compiled
// here, in its own translation unit, and reaches the engine through its registry entry.
#include "islands/workload/tpcb_workload.hpp"

#include "islands/exec/workload_variants.hpp"

namespace islands {

WorkloadEntry workload_entry_tpcb() { return WorkloadVariants<TpcbWorkload, &RunConfig::tpcb>::entry("tpcb"); }

}  // namespace islands
