#include "islands/perf/component.hpp"

namespace islands {

const char* component_name(Component component) {
  switch (component) {
    case Component::management:
      return "management";
    case Component::execution:
      return "execution";
    case Component::communication:
      return "communication";
    case Component::locking:
      return "locking";
    case Component::logging:
      return "logging";
  }
  return "unknown";
}

}  // namespace islands
