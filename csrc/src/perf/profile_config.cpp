#include "islands/perf/profile_config.hpp"

#include <string>

namespace islands {

void ProfileConfig::validate() const {
  check_fields(*this);
  for (const PerfEventSpec& e : events) {
    if (e.name.empty()) throw ConfigError("profile.events", "every counter needs a name");
    if (e.cpu < -1) throw ConfigError("profile.events", e.name + ": cpu must be -1 (the thread) or a CPU number");
  }
}

}  // namespace islands
