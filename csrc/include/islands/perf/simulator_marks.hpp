#pragma once
// Marks for a simulator around the measured part of a fixed run: valgrind's callgrind client
// requests (start/stop instrumentation, zero the counts), so that a run under
// `valgrind --tool=callgrind --instr-atstart=no` simulates only the transactions and not the
// load. No-ops outside valgrind, and where the build had no valgrind headers.
#if __has_include(<valgrind/callgrind.h>)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#include <valgrind/callgrind.h>
#pragma GCC diagnostic pop
#define ISLANDS_SIMULATOR_MARKS 1
#else
#define ISLANDS_SIMULATOR_MARKS 0
#endif

namespace islands {

//! True where the build compiled the marks in (valgrind headers were there).
inline constexpr bool kSimulatorMarks = ISLANDS_SIMULATOR_MARKS;

//! The simulator starts simulating (caches, branches) from here.
inline void simulation_start() {
#if ISLANDS_SIMULATOR_MARKS
  CALLGRIND_START_INSTRUMENTATION;
#endif
}
//! The simulator forgets what it counted so far (its caches stay warm).
inline void simulation_zero() {
#if ISLANDS_SIMULATOR_MARKS
  CALLGRIND_ZERO_STATS;
#endif
}
//! The simulator stops simulating and counting.
inline void simulation_stop() {
#if ISLANDS_SIMULATOR_MARKS
  CALLGRIND_STOP_INSTRUMENTATION;
#endif
}

}  // namespace islands
