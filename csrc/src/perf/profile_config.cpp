#include "islands/perf/profile_config.hpp"

#include <stdexcept>
#include <string>

namespace islands {

void ProfileConfig::validate() const {
  for (const PerfEventSpec& e : events) {
    if (e.name.empty()) throw std::invalid_argument("events: every counter needs a name");
    if (e.cpu < -1) throw std::invalid_argument("events: " + e.name + ": cpu must be -1 (the thread) or a CPU number");
  }
  if (breakdown_every > 1000000) {
    throw std::invalid_argument("breakdown_every: at most 1000000 (0 = off, 1 = every transaction)");
  }
}

}  // namespace islands
