// Timers: co_await sleep(d), co_await sleep_until(t). A timer costs no
// allocation (its entry lives in the awaiting frame), fires within tens of
// microseconds of its deadline on an idle runtime, and is removed in O(1)
// when the waiting task is cancelled.
#pragma once

#include <chrono>
#include <coroutine>

#include <lanes/detail/saturating_time.hpp>
#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/detail/timer_registration.hpp>

namespace lanes {

using clock = std::chrono::steady_clock;

// Whether a deadline has passed is asked of the timer wheel in
// await_suspend, not of the clock in await_ready: a clock read can cost as
// much as the rest of arming a timer (a virtual machine's clock source),
// and every first poll would pay it. The wheel knows a deadline has passed once its time
// has moved past it; a deadline between the wheel's time and now fires at
// the worker's next look at the timers. Only time_point::min(), the
// deadline of sleep(d) with d <= 0, is ready without suspending.
class sleep_awaiter {
 public:
  // A sleep may be kept across races (detail/race.hpp): a deadline held
  // for the iterations of a select loop. While it lingers after losing,
  // its timer can only send a stale wake, which the scheduler ignores; a
  // new await removes the timer left armed, then arms one for the same
  // deadline (at once due if it has passed). Like every awaiter it belongs
  // to the task that awaits it: to share a deadline between tasks, share
  // the time_point and give each its own sleep_until(deadline).
  static constexpr bool kept_across_races = true;

  explicit sleep_awaiter(clock::time_point deadline) noexcept : deadline_(deadline) {}
  sleep_awaiter(sleep_awaiter&& other) noexcept : deadline_(other.deadline_) {}  // before arming only
  sleep_awaiter(const sleep_awaiter&) = delete;
  sleep_awaiter& operator=(const sleep_awaiter&) = delete;

  bool await_ready() const noexcept { return deadline_ == clock::time_point::min() && detail::coop_consume(); }
  bool await_suspend(std::coroutine_handle<> h) {
    auto& self = detail::require_current_task("co_await lanes::sleep");
    self.set_resume_point(h);
    return timer_.arm(self, deadline_);  // false: already due, resume now
  }
  void await_resume() const noexcept {}
  // time_point::min() for sleep(d <= 0): due at once, without a clock read.
  clock::time_point deadline() const noexcept { return deadline_; }

 private:
  clock::time_point deadline_;
  detail::timer_registration timer_;
};

inline sleep_awaiter sleep_until(clock::time_point deadline) noexcept { return sleep_awaiter(deadline); }

// now + d, saturated: a duration too long for the clock means "never", one
// too far below zero "long past" (detail/saturating_time.hpp).
template <class Rep, class Period>
clock::time_point deadline_after(std::chrono::duration<Rep, Period> d) noexcept {
  return detail::deadline_from_now(d);
}

// sleep(hours::max()) means "forever", not an overflow; sleep(d <= 0)
// does not suspend (while the task's cooperative budget lasts).
template <class Rep, class Period>
sleep_awaiter sleep(std::chrono::duration<Rep, Period> d) noexcept {
  if (d <= std::chrono::duration<Rep, Period>::zero()) return sleep_awaiter(clock::time_point::min());
  return sleep_awaiter(deadline_after(d));
}

}  // namespace lanes
