#include "islands/transport/transport.hpp"

#include <stdexcept>

namespace islands {

Transport::Transport(const TransportConfig& config) : config_(config) {
  // Validated here once, so every transport starts from a config that makes sense.
  validate_transport_config(config_);
}

void Transport::check_destination(std::uint32_t dest, std::size_t size, const char* what) const {
  if (dest >= config_.n_instances || dest == config_.instance_id) {
    throw std::invalid_argument(std::string(what) + ": destination " + std::to_string(dest) +
                                " is not a peer of instance " +
                                std::to_string(config_.instance_id) + " (n_instances = " +
                                std::to_string(config_.n_instances) + ")");
  }
  if (size > config_.max_message_bytes) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(size) +
                                " bytes exceed max_message_bytes = " +
                                std::to_string(config_.max_message_bytes));
  }
}

}  // namespace islands
