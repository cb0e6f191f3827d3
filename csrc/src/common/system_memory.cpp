#include "islands/common/system_memory.hpp"

#include <fstream>
#include <string>

namespace islands {

std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string name, unit;
  std::uint64_t kib = 0;
  while (meminfo >> name >> kib >> unit) {
    if (name == "MemAvailable:") return kib * 1024;
  }
  return 0;  // unknown
}

}  // namespace islands
