// interval: a timer that fires every `period`, against absolute deadlines
// (so lateness does not accumulate). The first tick fires at `start`
// (default: at once). When ticks are missed (the task was busy), the policy
// says what happens:
//   burst - fire the missed ticks back to back until caught up (Tokio's default);
//   delay - the next tick is one period after the late one fired;
//   skip  - drop the missed ticks; the next tick is the next multiple of the
//           period after now.
// One task at a time waits for a tick (Tokio's tick takes &mut self): a
// second tick awaited while one is pending is a runtime_misuse (the two
// would advance one schedule unsynchronized: a data race across workers). Move-only, and not while a tick is pending (a
// runtime_misuse: that tick refers to the interval it came from).
#pragma once

#include <atomic>
#include <chrono>
#include <coroutine>
#include <cstdint>
#include <utility>

#include <lanes/config_error.hpp>
#include <lanes/detail/saturating_time.hpp>
#include <lanes/io/detail/misuse.hpp>
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
  // Not while a tick of either is pending: that tick refers to the
  // interval it was taken from, and would advance it (or outlive it) after
  // the move. Such a move is a runtime_misuse, and moves nothing.
  // Not noexcept for that reason: interval is not copyable, so a container
  // moves it all the same.
  interval(interval&& other)  // NOLINT(performance-noexcept-move-constructor)
      : period_(other.period_), policy_(other.policy_), next_(other.next_) {
    other.refuse_move_while_ticking();
  }
  interval& operator=(interval&& other) {  // NOLINT(performance-noexcept-move-constructor)
    if (this != &other) {
      refuse_move_while_ticking();
      other.refuse_move_while_ticking();
      period_ = other.period_;
      policy_ = other.policy_;
      next_ = other.next_;
    }
    return *this;
  }
  interval(const interval&) = delete;
  interval& operator=(const interval&) = delete;

  // Holds the interval's one tick from its creation to its destruction (the
  // end of the co_await): the schedule is read for the deadline and advanced
  // only by the holder. A second one finds the interval taken, reads nothing,
  // and throws when awaited.
  class tick_awaiter {
   public:
    explicit tick_awaiter(interval& owner) noexcept
        : owner_(owner), holds_(owner.take()), sleep_(holds_ ? owner.next_ : clock::time_point::min()) {}
    tick_awaiter(tick_awaiter&& other) noexcept
        : owner_(other.owner_), holds_(std::exchange(other.holds_, false)), sleep_(std::move(other.sleep_)) {}
    tick_awaiter(const tick_awaiter&) = delete;
    tick_awaiter& operator=(const tick_awaiter&) = delete;
    ~tick_awaiter() {
      if (holds_) owner_.give_back();
    }

    bool await_ready() const {
      if (!holds_) [[unlikely]]
        detail::throw_misuse(
            "lanes::interval::tick awaited twice at once (by two tasks, or in two branches of one select): "
            "one wait at a time");
      return sleep_.await_ready();
    }
    bool await_suspend(std::coroutine_handle<> h) { return sleep_.await_suspend(h); }
    // The deadline of the tick that fired.
    clock::time_point await_resume() { return owner_.advance(); }

   private:
    interval& owner_;
    bool holds_;
    sleep_awaiter sleep_;
  };

  // co_await it for the next tick; returns that tick's scheduled time.
  tick_awaiter tick() noexcept { return tick_awaiter(*this); }
  clock::duration period() const noexcept { return period_; }
  clock::time_point next_deadline() const noexcept { return next_; }

 private:
  // The pending tick's hold. Acquire and release: the schedule a holder
  // advanced on one worker is what the next holder reads on another.
  bool take() noexcept { return !ticking_.exchange(true, std::memory_order_acquire); }
  void give_back() noexcept { ticking_.store(false, std::memory_order_release); }
  void refuse_move_while_ticking() const {
    if (ticking_.load(std::memory_order_acquire)) [[unlikely]]
      detail::throw_misuse(
          "lanes::interval moved while a tick of it is pending: move it before tick() or after "
          "the co_await");
  }

  clock::time_point advance() {
    const auto fired = next_;
    const auto now = clock::now();
    switch (policy_) {
      case missed_tick::burst:
        next_ = detail::saturated_add(next_, period_);
        break;
      case missed_tick::delay:
        next_ = detail::saturated_add(now, period_);
        break;
      case missed_tick::skip:
        next_ = detail::saturated_add(next_, period_);
        if (next_ <= now) next_ = detail::saturated_add(now, period_ - behind_modulo_period(now));
        break;
    }
    return fired;
  }

  // (now - next_) % period_, for next_ <= now: the distance is taken in
  // unsigned arithmetic, where it fits even when the interval started near
  // time_point::min() (as a signed count it would overflow). So the next
  // tick on the grid after now is now + period_ - this.
  clock::duration behind_modulo_period(clock::time_point now) const noexcept {
    const auto behind = static_cast<std::uint64_t>(now.time_since_epoch().count()) -
                        static_cast<std::uint64_t>(next_.time_since_epoch().count());
    return clock::duration(static_cast<clock::rep>(behind % static_cast<std::uint64_t>(period_.count())));
  }

  clock::duration period_;
  missed_tick policy_;
  clock::time_point next_;
  std::atomic<bool> ticking_{false};  // a tick_awaiter holds the schedule
};

}  // namespace lanes
