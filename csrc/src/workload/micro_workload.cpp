// Every engine variant of the micro workload (index × concurrency-control scheme) is compiled
// here, in its own translation unit, and reaches the engine through its registry entry.
#include "islands/workload/micro_workload.hpp"

#include "islands/exec/workload_variants.hpp"

namespace islands {

WorkloadEntry workload_entry_micro() { return WorkloadVariants<MicroWorkload, &RunConfig::micro>::entry("micro"); }

}  // namespace islands
