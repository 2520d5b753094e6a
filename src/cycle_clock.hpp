// cycle_clock: a cheap timestamp for per-poll timing (the io lane's busy
// time, longest poll and stall detector; the react lane's work/wait
// split). On x86 it reads the TSC (constant and non-stop on the machines
// lanes targets: /proc/cpuinfo constant_tsc, nonstop_tsc), ~25 cycles
// instead of ~60 for clock_gettime; elsewhere it is CLOCK_MONOTONIC in ns. Ticks are turned into nanoseconds only on
// cold paths (metrics snapshots, stall reports), with a rate measured between the first use and now.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include <chrono>

namespace lanes::detail {

class cycle_clock {
 public:
  static std::uint64_t now() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
#endif
  }
  static double ns_per_tick() noexcept;
  static std::uint64_t to_ns(std::uint64_t ticks) noexcept {
    return static_cast<std::uint64_t>(static_cast<double>(ticks) * ns_per_tick());
  }
};

// Nanoseconds on CLOCK_MONOTONIC, the clock of std::chrono::steady_clock on
// Linux: for deadlines and for timing the rare slow paths.
std::uint64_t monotonic_ns() noexcept;

}  // namespace lanes::detail
