#pragma once
#include <vector>

namespace islands {

//! Pins the calling thread to one CPU (sched_setaffinity); throws std::invalid_argument naming
//! the CPU when it does not exist, is offline or is outside this process's allowed set.
void pin_current_thread(int cpu);

//! Lets the calling thread run on any of `cpus` (sched_setaffinity; a CPU may be listed more
//! than once); throws std::invalid_argument as pin_current_thread, and for an empty list.
void pin_current_thread_to(const std::vector<int>& cpus);

//! The CPUs this process may run on (sched_getaffinity).
std::vector<int> allowed_cpus();

//! The CPU the calling thread runs on now.
int current_cpu();

}  // namespace islands
