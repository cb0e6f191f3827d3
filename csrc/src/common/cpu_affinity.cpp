#include "islands/common/cpu_affinity.hpp"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace islands {

void pin_current_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) {
    throw std::invalid_argument("cpus: CPU " + std::to_string(cpu) + " does not exist");
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    const int err = errno;
    throw std::invalid_argument("cpus: cannot pin to CPU " + std::to_string(cpu) +
                                " (it does not exist, is offline or is not allowed: " +
                                std::strerror(err) + ")");
  }
}

void pin_current_thread_to(const std::vector<int>& cpus) {
  if (cpus.empty()) throw std::invalid_argument("cpus: no CPU to pin to");
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) throw std::invalid_argument("cpus: CPU " + std::to_string(cpu) + " does not exist");
    CPU_SET(cpu, &set);
  }
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    const int err = errno;
    throw std::invalid_argument(std::string("cpus: cannot pin to the CPUs given (one does not exist, is offline or is not allowed: ") +
                                std::strerror(err) + ")");
  }
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

int current_cpu() { return sched_getcpu(); }

}  // namespace islands
