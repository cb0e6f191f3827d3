#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace islands {

//! What one part of a transaction exchanges with the other parts at a PLP rendezvous
//! (exec/plp/plp_stages.hpp): the records the earlier stage's actions produced, as its input, and
//! where its own operations append the records they produce, as its output. The records are
//! words the workload encodes and decodes itself; the engine only carries them.
//!
//! A workload whose operations exchange data says which operations consume it
//! (`consumes(words, n, at)`, see exec/workload_interface.hpp) and takes an ActionIo as the last
//! argument of execute_part. Without one (nullptr: shared-everything, shared-nothing, or a PLP
//! transaction on one partition, which holds every row it reads) an operation reads what it
//! needs from the rows as it always did.
struct ActionIo {
  const std::uint64_t* in = nullptr;          //!< the input records (nullptr: none given)
  std::size_t in_words = 0;                   //!< words at `in`
  std::vector<std::uint64_t>* out = nullptr;  //!< where to append produced records (nullptr: nobody consumes them)
  std::uint64_t produced = 0;                 //!< records appended to `out`
  std::uint64_t consumed = 0;                 //!< records of `in` the operations used
};

}  // namespace islands
