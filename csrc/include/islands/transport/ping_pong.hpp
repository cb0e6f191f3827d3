#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "islands/transport/transport.hpp"

namespace islands {

//! Runs a ping-pong between this endpoint and peer; both sides call it, one as initiator.
//! The initiator sends round_trips fragments of payload_bytes (txn_id = 0, 1, ...), each
//! after the ack echoing the previous one has come back, and returns every round trip in
//! nanoseconds, in order; then it sends a shutdown. The responder echoes each fragment as an
//! ack with the same txn_id and payload until that shutdown, and returns an empty vector.
//! Spins (never sleeps) so it measures the transport, not the scheduler. Throws
//! std::runtime_error when no progress is made for timeout_ms or an echo is wrong.
std::vector<std::uint64_t> ping_pong(Transport& transport, std::uint32_t peer, bool initiator,
                                     std::size_t round_trips, std::size_t payload_bytes,
                                     std::uint32_t timeout_ms);

}  // namespace islands
