// interval: a timer that fires every `period`, against absolute deadlines
// (so lateness does not accumulate). The first tick fires at `start`
// (default: at once). When ticks are missed (the task was busy), the policy
// says what happens:
//   burst - fire the missed ticks back to back until caught up (Tokio's default);
//   delay - the next tick is one period after the late one fired;
//   skip  - drop the missed ticks; the next tick is the next multiple of the
//           period after now.
#pragma once

#include <chrono>
#include <coroutine>

#include <lanes/config_error.hpp>
#include <lanes/io/sleep.hpp>

namespace lanes {

enum class missed_tick { burst, delay, skip };

class interval {
 public:
  explicit interval(clock::duration period, missed_tick policy = missed_tick::burst,
                    clock::time_point start = clock::now())
      : period_(period), policy_(policy), next_(start) {
    if (period <= clock::duration::zero()) throw config_error("lanes::interval: the period must be positive");
  }

  class tick_awaiter {
   public:
    tick_awaiter(interval& owner) noexcept : owner_(owner), sleep_(owner.next_) {}
    bool await_ready() const noexcept { return sleep_.await_ready(); }
    bool await_suspend(std::coroutine_handle<> h) { return sleep_.await_suspend(h); }
    // The deadline of the tick that fired.
    clock::time_point await_resume() { return owner_.advance(); }

   private:
    interval& owner_;
    sleep_awaiter sleep_;
  };

  // co_await it for the next tick; returns that tick's scheduled time.
  tick_awaiter tick() noexcept { return tick_awaiter(*this); }
  clock::duration period() const noexcept { return period_; }
  clock::time_point next_deadline() const noexcept { return next_; }

 private:
  clock::time_point advance() {
    const auto fired = next_;
    const auto now = clock::now();
    switch (policy_) {
      case missed_tick::burst:
        next_ += period_;
        break;
      case missed_tick::delay:
        next_ = now + period_;
        break;
      case missed_tick::skip:
        next_ += period_;
        if (next_ <= now) next_ += period_ * ((now - next_) / period_ + 1);
        break;
    }
    return fired;
  }

  clock::duration period_;
  missed_tick policy_;
  clock::time_point next_;
};

}  // namespace lanes
