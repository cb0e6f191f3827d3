#pragma once
#include <cstdint>

namespace islands {

//! Bytes of memory the machine has available now (MemAvailable of /proc/meminfo: what can be
//! allocated without swapping); 0 when unknown.
std::uint64_t available_memory_bytes();

//! Bytes of CPU 0's last-level cache (the highest level sysfs lists, else glibc's
//! sysconf(_SC_LEVEL3_CACHE_SIZE)); 0 when unknown.
std::uint64_t last_level_cache_bytes();

}  // namespace islands
