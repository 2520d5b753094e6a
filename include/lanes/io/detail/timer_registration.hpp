// timer_registration: one timer armed for the running task. It lives in the
// awaiter (no allocation), and disarms itself when destroyed, so a task
// cancelled while it waits leaves nothing behind in the wheel.
#pragma once

#include <chrono>
#include <cstdint>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/detail/timer_entry.hpp>

namespace lanes::detail {

class timer_registration {
 public:
  timer_registration() noexcept = default;
  timer_registration(const timer_registration&) = delete;
  timer_registration& operator=(const timer_registration&) = delete;
  ~timer_registration() { disarm(); }

  // Arms a timer that wakes `self` (the running task) at `deadline`; true
  // when the task must suspend. A deadline the wheel has already passed is
  // due: false (resume at once) while the task's cooperative budget lasts,
  // else it is woken at once and yields once. A timer still armed from an
  // earlier await (a sleep kept across a select it lost) is removed first:
  // linked twice, it cut the wheel's list and lost the timers after it.
  bool arm(task_header& self, std::chrono::steady_clock::time_point deadline) {
    if (owner_ != nullptr) [[unlikely]]
      disarm();
    // Empty here: a timer that fired or was cancelled had its waker moved
    // out (under its shard's lock, before `linked` was cleared), and one
    // found due below has it dropped or woken.
    entry_.fired = false;
    entry_.to_wake.fill(self.make_waker());
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
    if (timer_register(*self.owner(), entry_, ns < 0 ? 0 : static_cast<std::uint64_t>(ns))) {
      owner_ = self.owner();
      return true;
    }
    entry_.fired = true;
    if (coop_consume()) {
      waker unused = static_cast<waker&&>(entry_.to_wake);  // dropped: nothing will wake the task
      return false;
    }
    static_cast<waker&&>(entry_.to_wake).wake();
    return true;
  }
  // Removes the timer if it is still pending; true when it had fired (its
  // wake was sent) since the last arm().
  bool disarm() noexcept {
    // Not linked: it fired (its wake was sent), or its runtime shut down
    // and released it (the scheduler may be gone: do not reach into it).
    // The acquire pairs with the firing's (or the release's) last store.
    if (owner_ != nullptr && (!entry_.linked.load(std::memory_order_acquire) || !timer_cancel(*owner_, entry_))) {
      entry_.fired = true;
    }
    owner_ = nullptr;
    return entry_.fired;
  }

 private:
  scheduler* owner_ = nullptr;  // set while armed
  timer_entry entry_;
};

}  // namespace lanes::detail
