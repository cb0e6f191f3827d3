#include "islands/common/system_memory.hpp"

#include <unistd.h>

#include <exception>
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

std::uint64_t last_level_cache_bytes() {
  int best_level = 0;
  std::uint64_t best = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size"), type_file(dir + "type");
    int level = 0;
    std::string size, type;
    if (!(level_file >> level) || !(size_file >> size)) continue;
    if ((type_file >> type) && type == "Instruction") continue;
    // "32768K", "2M" or plain bytes.
    std::uint64_t bytes = 0;
    std::size_t used = 0;
    try {
      bytes = std::stoull(size, &used);
    } catch (const std::exception&) {
      continue;
    }
    const char unit = used < size.size() ? size[used] : ' ';
    if (unit == 'K') bytes <<= 10;
    if (unit == 'M') bytes <<= 20;
    if (unit == 'G') bytes <<= 30;
    if (level > best_level) {
      best_level = level;
      best = bytes;
    }
  }
  if (best > 0) return best;
#ifdef _SC_LEVEL3_CACHE_SIZE
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) return static_cast<std::uint64_t>(l3);
#endif
  return 0;  // unknown
}

}  // namespace islands
