// waiter_slot: the place of the one task that may wait on something at a
// time (a join_set's join_next, a oneshot or mpsc receiver, one direction
// of an async_fd). Guarded by its owner's lock.
//
// - A second waiter while one waits is a runtime_misuse: it would replace
//   the first one's waker, and the first would wait for good.
// - A waiter that leaves (cancelled, a race lost) takes back only its own
//   waker: a wake may have taken it already (the task was woken and then
//   destroyed before it ran), and another task may be waiting there now.
#pragma once

#include <string>

#include <lanes/io/detail/task_header.hpp>
#include <lanes/io/errors.hpp>

namespace lanes::detail {

class waiter_slot {
 public:
  // Leaves `w` as it was when it throws. `what` names the wait
  // ("lanes::join_set::join_next").
  void occupy(waker&& w, const char* what) {
    if (waker_)
      throw runtime_misuse(
          std::string(what) +
          " awaited twice at once (by two tasks, or in two branches of one select): one wait at a time");
    waker_.fill(static_cast<waker&&>(w));  // empty here: nothing to drop
  }
  // The waiter's waker, to wake (or drop) once the lock is released.
  waker take() noexcept { return static_cast<waker&&>(waker_); }
  // The waker of `task` if it is still here (to drop after the lock).
  waker leave(const task_header* task) noexcept { return holds(task) ? take() : waker(); }
  bool holds(const task_header* task) const noexcept { return waker_.targets(task); }
  explicit operator bool() const noexcept { return static_cast<bool>(waker_); }

 private:
  waker waker_;
};

}  // namespace lanes::detail
