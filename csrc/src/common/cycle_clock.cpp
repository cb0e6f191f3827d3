#include "islands/common/cycle_clock.hpp"

#include <thread>

namespace islands {

double CycleClock::ns_per_tick() {
  // Measured once: the TSC rate is constant on the machines we run on (constant_tsc).
  static const double rate = [] {
    const auto wall0 = std::chrono::steady_clock::now();
    const std::uint64_t tick0 = now();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::uint64_t tick1 = now();
    const auto wall1 = std::chrono::steady_clock::now();
    const double ns = std::chrono::duration<double, std::nano>(wall1 - wall0).count();
    return tick1 > tick0 ? ns / static_cast<double>(tick1 - tick0) : 1.0;
  }();
  return rate;
}

}  // namespace islands
