#pragma once
// Named cases for the C++ tests that have several: run all, or only those named on the
// command line, each printed with ok/FAILED and its time.
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace islands_test {

struct TestCase {
  const char* name;
  std::function<void()> run;
};

//! Runs `cases` (only those argv names, when it names any); `failures` is the test's failure
//! counter, which an exception escaping a case also increments.
inline void run_cases(const std::vector<TestCase>& cases, int argc, char** argv, int& failures) {
  const std::set<std::string> only(argv + 1, argv + argc);
  for (const auto& c : cases) {
    if (!only.empty() && only.count(c.name) == 0) continue;
    const int before = failures;
    const auto start = std::chrono::steady_clock::now();
    try {
      c.run();
    } catch (const std::exception& e) {
      ++failures;
      std::fprintf(stderr, "%s: unexpected exception: %s\n", c.name, e.what());
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-32s %s (%.2f s)\n", c.name, failures == before ? "ok" : "FAILED", seconds);
  }
}

}  // namespace islands_test
