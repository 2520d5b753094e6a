// Which sanitizer this translation unit is built with (g++ defines
// __SANITIZE_*__, clang answers __has_feature): LANES_TSAN and LANES_ASAN
// are 1 or 0. The one place that asks the compiler.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define LANES_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LANES_TSAN 1
#endif
#endif
#ifndef LANES_TSAN
#define LANES_TSAN 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define LANES_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LANES_ASAN 1
#endif
#endif
#ifndef LANES_ASAN
#define LANES_ASAN 0
#endif
