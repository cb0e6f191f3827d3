#pragma once

//! Whether this build compiles every engine variant (primary index × concurrency-control
//! scheme) into each workload: 1 (CMake ISLANDS_ALL_VARIANTS=ON, every build but the sanitizer
//! test builds), or 0: the default index and scheme only (hash, 2pl), the one variant the C++
//! tests run. The dispatchers (index_dispatch.hpp, cc_dispatch.hpp) refuse the others with a
//! ConfigError, so a test that needs one fails loudly rather than running something else.
#ifndef ISLANDS_ALL_VARIANTS
#define ISLANDS_ALL_VARIANTS 1
#endif

namespace islands {

//! ISLANDS_ALL_VARIANTS as a constant, for `if constexpr`.
inline constexpr bool kAllVariants = ISLANDS_ALL_VARIANTS != 0;

}  // namespace islands
