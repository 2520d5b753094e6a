#include "cycle_clock.hpp"

#include <chrono>
#include <thread>

namespace lanes::detail {

std::uint64_t monotonic_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

namespace {

struct origin {
  std::uint64_t ticks;
  std::uint64_t ns;
};

// Taken at start-up; a rate needs some distance from it to be precise.
const origin& first() noexcept {
  static const origin o{cycle_clock::now(), monotonic_ns()};
  return o;
}
[[maybe_unused]] const origin& taken_at_startup = first();

}  // namespace

double cycle_clock::ns_per_tick() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  const origin& o = first();
  std::uint64_t ticks = now() - o.ticks;
  std::uint64_t ns = monotonic_ns() - o.ns;
  if (ns < 1'000'000) {  // too close to the origin for a precise rate: measure 1 ms
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ticks = now() - o.ticks;
    ns = monotonic_ns() - o.ns;
  }
  return ticks == 0 ? 1.0 : static_cast<double>(ns) / static_cast<double>(ticks);
#else
  return 1.0;
#endif
}

}  // namespace lanes::detail
