#include <stdexcept>
#include <utility>

#include "islands/transport/shm_ring_transport.hpp"
#include "islands/transport/transport.hpp"
#include "islands/transport/unix_socket_transport.hpp"

namespace islands {

namespace {

// The one explicit list of transports; a new one is a line here and a file of its own.
const std::pair<const char*, TransportFactory> kTransports[] = {
    {"unix", &make_unix_transport},
    {"shm", &make_shm_transport},
};

}  // namespace

std::vector<std::string> transport_names() {
  std::vector<std::string> names;
  for (const auto& t : kTransports) names.emplace_back(t.first);
  return names;
}

std::unique_ptr<Transport> make_transport(const std::string& name, const TransportConfig& config) {
  std::string valid;
  for (const auto& t : kTransports) {
    if (name == t.first) return t.second(config);
    valid += (valid.empty() ? "" : ", ") + std::string(t.first);
  }
  throw std::invalid_argument("transport: unknown transport '" + name + "' (choose " + valid + ")");
}

}  // namespace islands
