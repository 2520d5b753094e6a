// saturating_time: deadline arithmetic that cannot overflow. A user may
// write sleep(hours::max()), interval(nanoseconds::max()),
// timeout(-hours::max(), op) or blocking_keep_alive(milliseconds::max())
// and mean "never" or "at once"; steady_clock's time_point + duration is
// signed 64-bit arithmetic, so those would be undefined behaviour (UBSan:
// "signed integer overflow" in <chrono>), and so is a condition variable's
// wait_for, which libstdc++ turns into now() + d unchecked. Every place in
// lanes that adds a user's duration to a time goes through here: past the
// clock's range the result is pinned to time_point::max() (never) or
// time_point::min() (long past).
#pragma once

#include <chrono>

namespace lanes::detail {

using steady_duration = std::chrono::steady_clock::duration;
using steady_time = std::chrono::steady_clock::time_point;

// `d` in the clock's unit, pinned to the unit's ends. The comparison is made
// in long double, which holds every 64-bit count exactly, so a duration of
// any representation (int hours, double seconds) is compared without a
// narrowing or overflowing cast first. NaN counts as "never". A floating
// count is converted from that long double too: converted through double,
// as duration_cast does, a value just under the end can round up past it.
template <class Rep, class Period>
constexpr steady_duration saturated_duration(std::chrono::duration<Rep, Period> d) noexcept {
  const std::chrono::duration<long double, steady_duration::period> wide = d;
  const auto top = static_cast<long double>(steady_duration::max().count());
  const auto bottom = static_cast<long double>(steady_duration::min().count());
  if (!(wide.count() < top)) return steady_duration::max();
  if (wide.count() <= bottom) return steady_duration::min();
  if constexpr (std::chrono::treat_as_floating_point_v<Rep>) {
    return steady_duration(static_cast<steady_duration::rep>(wide.count()));
  } else {
    return std::chrono::duration_cast<steady_duration>(d);
  }
}

// t + d, pinned to the clock's ends.
constexpr steady_time saturated_add(steady_time t, steady_duration d) noexcept {
  if (d > steady_duration::zero() && t > steady_time::max() - d) return steady_time::max();
  if (d < steady_duration::zero() && t < steady_time::min() - d) return steady_time::min();
  return t + d;
}

// now + d, pinned to the clock's ends: the deadline of every wait that
// lanes measures from now (sleep, timeout, spin_then_park, wait_for_saturated).
template <class Rep, class Period>
steady_time deadline_from_now(std::chrono::duration<Rep, Period> d) noexcept {
  return saturated_add(std::chrono::steady_clock::now(), saturated_duration(d));
}

// cv.wait_for(lock, d, pred) for any d: a deadline pinned at "never" waits
// for pred alone. Returns pred's value, as wait_for does.
template <class CondVar, class Lock, class Rep, class Period, class Pred>
bool wait_for_saturated(CondVar& cv, Lock& lock, std::chrono::duration<Rep, Period> d, Pred pred) {
  const steady_time deadline = deadline_from_now(d);
  if (deadline == steady_time::max()) {
    cv.wait(lock, pred);
    return true;
  }
  return cv.wait_until(lock, deadline, pred);
}

}  // namespace lanes::detail
