#include "islands/exec/txn_lookahead.hpp"

#include "islands/common/system_memory.hpp"

namespace islands {
namespace {

// Transactions drawn ahead where the data outgrows the cache (engine.interleave = -1, the
// default). On the 2-core EPYC VM benchmarks/memory_parallelism.py measured no depth faster than
// none over 2 M and 20 M rows, in the bare loop as in the engine: each transaction's own
// prefetch already overlaps its misses there (see docs/engine.md).
constexpr std::size_t kAutoDepth = 4;

}  // namespace

std::size_t auto_interleave_depth(std::size_t footprint_bytes) {
  // Read once: every worker of every run asks, and the cache does not change.
  static const std::uint64_t llc = last_level_cache_bytes();
  if (llc == 0) return 0;
  return footprint_bytes > llc ? kAutoDepth : 0;
}

}  // namespace islands
