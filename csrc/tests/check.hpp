#pragma once
// A tiny test harness for the C++ unit tests (a fresh machine has no test framework).
#include <cstdio>
#include <cstdlib>

namespace islands_test {
//! Divides the sizes of the racing tests under ThreadSanitizer, which runs threads that race
//! on two cores 10-50x slower: the races still happen, on fewer keys and rounds.
#ifdef __SANITIZE_THREAD__
inline constexpr unsigned kRaceScale = 10;
#else
inline constexpr unsigned kRaceScale = 1;
#endif
inline int failures = 0;
inline int checks = 0;
}  // namespace islands_test

#define CHECK(condition)                                                          \
  do {                                                                            \
    ++islands_test::checks;                                                       \
    if (!(condition)) {                                                           \
      ++islands_test::failures;                                                   \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
    }                                                                             \
  } while (0)

//! Ends a test program: prints the tally, exit status 1 on any failure.
inline int test_summary(const char* name) {
  std::printf("%s: %d checks, %d failed\n", name, islands_test::checks, islands_test::failures);
  return islands_test::failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
