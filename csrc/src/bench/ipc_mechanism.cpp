#include "islands/bench/ipc_mechanism.hpp"

#include <stdexcept>

namespace islands {

namespace {

// The one list of mechanisms: name and value, in the order the figure shows them.
struct Entry {
  const char* name;
  IpcMechanism mechanism;
};
constexpr Entry kMechanisms[] = {
    {"mqueue", IpcMechanism::mqueue},
    {"pipe", IpcMechanism::pipe},
    {"fifo", IpcMechanism::fifo},
    {"tcp", IpcMechanism::tcp},
    {"unix_stream", IpcMechanism::unix_stream},
    {"unix_seqpacket", IpcMechanism::unix_seqpacket},
    {"shm_ring", IpcMechanism::shm_ring},
};

}  // namespace

const char* ipc_mechanism_name(IpcMechanism mechanism) {
  for (const Entry& e : kMechanisms) {
    if (e.mechanism == mechanism) return e.name;
  }
  return "unknown";
}

IpcMechanism parse_ipc_mechanism(const std::string& name) {
  std::string choices;
  for (const Entry& e : kMechanisms) {
    if (name == e.name) return e.mechanism;
    choices += choices.empty() ? e.name : std::string(", ") + e.name;
  }
  throw std::invalid_argument("mechanism: unknown messaging mechanism '" + name + "' (choose " +
                              choices + ")");
}

std::vector<IpcMechanism> all_ipc_mechanisms() {
  std::vector<IpcMechanism> out;
  for (const Entry& e : kMechanisms) out.push_back(e.mechanism);
  return out;
}

}  // namespace islands
