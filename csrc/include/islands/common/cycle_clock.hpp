#pragma once
#include <chrono>
#include <cstdint>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace islands {

//! A cheap monotonic tick counter (the TSC on x86, steady_clock elsewhere) and its rate.
struct CycleClock {
  //! Current tick count.
  static std::uint64_t now() {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
  }
  //! Nanoseconds per tick, measured once per process against steady_clock (about 20 ms).
  static double ns_per_tick();
};

//! Seconds elapsed on steady_clock since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace islands
