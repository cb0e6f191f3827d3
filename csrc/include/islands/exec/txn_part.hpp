#pragma once
#include <cstdint>
#include <vector>

namespace islands {

//! One instance's part of a transaction, as a workload encodes it: opaque 64-bit words that
//! the workload's execute_part understands (micro: the keys; TPC-B: operations and their
//! parameters). A remote part travels in one fragment to the worker owning `site`.
struct TxnPart {
  std::vector<std::uint64_t> words;  //!< the encoded operations
  std::uint32_t site = 0;            //!< global site that executes it (endpoint of the fragment)

  void clear() { words.clear(); }
  bool empty() const { return words.empty(); }
};

}  // namespace islands
