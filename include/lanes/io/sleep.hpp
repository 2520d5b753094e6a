// Timers: co_await sleep(d), co_await sleep_until(t). A timer costs no
// allocation (its entry lives in the awaiting frame), fires within tens of
// microseconds of its deadline on an idle runtime, and is removed in O(1)
// when the waiting task is cancelled.
#pragma once

#include <chrono>
#include <coroutine>
#include <cstdint>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/detail/timer_entry.hpp>

namespace lanes {

using clock = std::chrono::steady_clock;

class sleep_awaiter {
 public:
  explicit sleep_awaiter(clock::time_point deadline) noexcept : deadline_(deadline) {}
  sleep_awaiter(sleep_awaiter&& other) noexcept : deadline_(other.deadline_) {}  // before registration only
  sleep_awaiter(const sleep_awaiter&) = delete;
  sleep_awaiter& operator=(const sleep_awaiter&) = delete;
  ~sleep_awaiter() {
    if (owner_ != nullptr) detail::timer_cancel(*owner_, entry_);
  }

  bool await_ready() const noexcept { return clock::now() >= deadline_ && detail::coop_consume(); }
  void await_suspend(std::coroutine_handle<> h) {
    auto& self = detail::require_current_task("co_await lanes::sleep");
    self.set_resume_point(h);
    detail::scheduler* owner = self.owner();
    entry_.to_wake = self.make_waker();
    if (detail::timer_register(*owner, entry_, deadline_ns())) {
      owner_ = owner;
    } else {
      std::move(entry_.to_wake).wake();  // already due (or out of coop budget): yield once
    }
  }
  void await_resume() const noexcept {}

 private:
  std::uint64_t deadline_ns() const noexcept {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline_.time_since_epoch()).count();
    return ns < 0 ? 0 : static_cast<std::uint64_t>(ns);
  }
  clock::time_point deadline_;
  detail::scheduler* owner_ = nullptr;  // set while registered
  detail::timer_entry entry_;
};

inline sleep_awaiter sleep_until(clock::time_point deadline) noexcept { return sleep_awaiter(deadline); }

template <class Rep, class Period>
sleep_awaiter sleep(std::chrono::duration<Rep, Period> d) noexcept {
  // Saturate: sleep(hours::max()) means "forever", not an overflow.
  const auto now = clock::now();
  const auto room = clock::time_point::max() - now;
  if (d >= std::chrono::duration_cast<std::chrono::duration<Rep, Period>>(room)) {
    return sleep_awaiter(clock::time_point::max());
  }
  return sleep_awaiter(now + std::chrono::duration_cast<clock::duration>(d));
}

}  // namespace lanes
