#pragma once
#include <cstdint>

namespace islands {

//! Bytes of memory the machine has available now (MemAvailable of /proc/meminfo: what can be
//! allocated without swapping); 0 when unknown.
std::uint64_t available_memory_bytes();

}  // namespace islands
