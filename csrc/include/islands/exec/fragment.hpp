#pragma once
#include <cstdint>
#include <vector>

#include "islands/transport/message.hpp"

namespace islands {

//! A participant's vote, and the coordinator's decision, travel as one byte.
enum Vote : std::uint8_t { kVoteAbort = 0, kVoteCommit = 1, kVoteReadOnly = 2 };

//! Writes a 2PC fragment's payload: [u8 update][u32 n][n x u64 word], host byte order (one
//! machine); the words are the workload's encoding of the part (micro: keys).
void encode_fragment(bool update, const std::vector<std::uint64_t>& words, Message& out);
//! Reads a fragment's payload; false when it is malformed.
bool decode_fragment(const Message& in, bool& update, std::vector<std::uint64_t>& words);

}  // namespace islands
