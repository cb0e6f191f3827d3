#pragma once
#include <array>
#include <cstdint>

#include "islands/transport/message.hpp"

namespace islands {

//! Counters of one endpoint since it was made. Bytes are wire bytes (header plus payload).
struct TransportStats {
  std::uint64_t messages_sent = 0;      //!< messages queued whole by send
  std::uint64_t bytes_sent = 0;         //!< wire bytes of those messages and of raw records
  std::uint64_t raw_records_sent = 0;   //!< unchecked records pushed by send_raw
  std::uint64_t send_full = 0;          //!< sends refused because the channel was full
  std::uint64_t messages_received = 0;  //!< well-formed messages handed out by poll
  std::uint64_t bytes_received = 0;     //!< wire bytes of those messages
  std::uint64_t malformed = 0;          //!< records rejected and dropped (all reasons)
  std::uint64_t disconnects = 0;        //!< inbound connections that closed (unix sockets)
  //! Rejected records per DecodeStatus (the ok slot stays 0).
  std::array<std::uint64_t, kDecodeStatusCount> malformed_by_reason{};
};

}  // namespace islands
