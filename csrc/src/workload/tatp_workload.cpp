// Every engine variant of the tatp workload (index × concurrency-control scheme) is compiled
// here, in its own translation unit, and reaches the engine through its registry entry.
#include "islands/workload/tatp_workload.hpp"

#include "islands/exec/workload_variants.hpp"

namespace islands {

WorkloadEntry workload_entry_tatp() { return WorkloadVariants<TatpWorkload, &RunConfig::tatp>::entry("tatp"); }

}  // namespace islands
