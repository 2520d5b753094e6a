// Whether this translation unit is built with AddressSanitizer or
// ThreadSanitizer (g++ defines __SANITIZE_*__, clang answers __has_feature).
// Used where lanes behaves differently under a sanitizer (the frame cache
// is bypassed) and by stress tests that run fewer iterations there.
#pragma once

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define LANES_SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define LANES_SANITIZED_BUILD 1
#endif
#endif
#ifndef LANES_SANITIZED_BUILD
#define LANES_SANITIZED_BUILD 0
#endif

namespace lanes::detail {

inline constexpr bool sanitized_build = LANES_SANITIZED_BUILD != 0;

// Stress tests divide their iteration counts by this: sanitizers make
// every operation ~10x slower, and what is checked stays the same.
inline constexpr int stress_divisor = sanitized_build ? 10 : 1;

}  // namespace lanes::detail
