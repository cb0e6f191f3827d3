#include "islands/transport/transport_config.hpp"

#include <stdexcept>

#include "islands/transport/message.hpp"

namespace islands {

namespace {

[[noreturn]] void reject(const std::string& field, const std::string& why) {
  throw std::invalid_argument("transport config: " + field + " " + why);
}

}  // namespace

void validate_transport_config(const TransportConfig& c) {
  if (c.directory.empty()) reject("directory", "is empty (give the run's private directory)");
  if (c.n_instances == 0) reject("n_instances", "is 0 (at least 1)");
  if (c.instance_id >= c.n_instances) {
    reject("instance_id", "= " + std::to_string(c.instance_id) + " is not below n_instances = " +
                              std::to_string(c.n_instances));
  }
  if (c.max_message_bytes < kMessageHeaderBytes || c.max_message_bytes > kMaxMessageBytesLimit) {
    reject("max_message_bytes", "= " + std::to_string(c.max_message_bytes) + " is outside [" +
                                    std::to_string(kMessageHeaderBytes) + ", " +
                                    std::to_string(kMaxMessageBytesLimit) + "]");
  }
  // A power of two lets ring positions wrap with a mask; the frame adds 16 bytes to a message.
  if (c.ring_bytes < kMinRingBytes || (c.ring_bytes & (c.ring_bytes - 1)) != 0) {
    reject("ring_bytes", "= " + std::to_string(c.ring_bytes) +
                             " must be a power of two of at least " + std::to_string(kMinRingBytes));
  }
  if (c.ring_bytes < c.max_message_bytes + 16) {
    reject("ring_bytes", "= " + std::to_string(c.ring_bytes) +
                             " cannot hold one message of max_message_bytes = " +
                             std::to_string(c.max_message_bytes) + " plus its 16-byte frame");
  }
  if (c.attach_timeout_ms == 0) reject("attach_timeout_ms", "is 0 (give peers time to start)");
}

}  // namespace islands
