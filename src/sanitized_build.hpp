// Whether this translation unit is built with AddressSanitizer or
// ThreadSanitizer (include/lanes/detail/sanitizers.hpp asks the compiler).
// Used where lanes behaves differently under a sanitizer (the frame cache
// is bypassed) and by stress tests that run fewer iterations there.
#pragma once

#include <lanes/detail/sanitizers.hpp>

namespace lanes::detail {

inline constexpr bool sanitized_build = LANES_TSAN || LANES_ASAN;

// Stress tests divide their iteration counts by this: sanitizers make
// every operation ~10x slower, and what is checked stays the same.
inline constexpr int stress_divisor = sanitized_build ? 10 : 1;

}  // namespace lanes::detail
