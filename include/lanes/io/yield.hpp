// yield_now(): lets the other tasks of this worker run, then continues.
// The task goes to the back of its worker's queue.
#pragma once

#include <coroutine>

#include <lanes/io/detail/runtime_access.hpp>

namespace lanes {

struct yield_now {
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const {
    auto& self = detail::require_current_task("co_await lanes::yield_now()");
    self.set_resume_point(h);
    self.make_waker().wake();  // we are running: this marks us notified, rescheduled after this poll
  }
  void await_resume() const noexcept {}
};

}  // namespace lanes
