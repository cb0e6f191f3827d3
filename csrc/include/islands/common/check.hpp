#pragma once

namespace islands {

//! Reports a broken invariant by throwing std::logic_error with the place and condition.
[[noreturn]] void check_failed(const char* file, int line, const char* condition, const char* what);

}  // namespace islands

//! Always-on invariant check (not compiled out in release builds).
#define ISLANDS_CHECK(condition, what)                                          \
  do {                                                                          \
    if (__builtin_expect(!(condition), 0))                                      \
      ::islands::check_failed(__FILE__, __LINE__, #condition, (what));          \
  } while (0)
