#pragma once
#include <cstdint>
#include <vector>

#include "islands/transport/message.hpp"

namespace islands {

//! A participant's vote, and the coordinator's decision, travel as one byte: the value in the
//! low bits, flags above it.
enum Vote : std::uint8_t { kVoteAbort = 0, kVoteCommit = 1, kVoteReadOnly = 2 };
//! The bits of a vote byte that hold its Vote.
constexpr std::uint8_t kVoteValueMask = 0x0f;
//! Vote flag: a read-only part that still holds its reads (its shared locks, or its occ read
//! set) and waits for the coordinator's decision (or its validate request) to let them go.
constexpr std::uint8_t kVoteHeld = 0x10;
//! Vote flag: an occ part whose reads must be validated again once every participant holds
//! its write set locked (MessageType::validate).
constexpr std::uint8_t kVoteRevalidate = 0x20;

//! What a participant needs to know about the transaction its fragment belongs to.
struct FragmentFlags {
  bool update = false;  //!< the part writes (else it is read-only)
  bool shared = false;  //!< the transaction has other participants too (see exec/two_phase_commit.hpp)
};

//! Writes a 2PC fragment's payload: [u8 flags][u32 n][n x u64 word], host byte order (one
//! machine); the words are the workload's encoding of the part (micro: keys).
void encode_fragment(FragmentFlags flags, const std::vector<std::uint64_t>& words, Message& out);
//! Reads a fragment's payload; false when it is malformed.
bool decode_fragment(const Message& in, FragmentFlags& flags, std::vector<std::uint64_t>& words);

}  // namespace islands
