// timeout(d, op): the result of `op`, or timed_out if it has not finished
// within `d`. On time-out the operation is cancelled, and its cancellation
// has completed (its frame destroyed, its registrations removed) before
// timeout returns: nothing is left running in the background.
//
// How `op` runs depends on what it is:
// - a lanes awaitable (semaphore::acquire(), a channel's recv(), a
//   join_handle, ...) is awaited in place, racing a timer armed for the
//   same suspension: no spawn, and cancelling the task that awaits the
//   timeout cancels the operation synchronously (the awaiter is destroyed
//   with the frame). An awaitable that wins the race is used even when the
//   deadline has passed; one that loses is destroyed, which is how every
//   lanes awaitable is cancelled (see docs/sync.md).
// - a task<T> runs as a child task on the same runtime (one spawn): a task
//   may suspend many times, and each suspension has its own wakers, so the
//   waiting side races the child's completion against the timer instead.
//   If the task awaiting the timeout is itself cancelled, the child is
//   aborted with it (its cancellation then completes on a worker).
#pragma once

#include <chrono>
#include <coroutine>
#include <type_traits>
#include <utility>

#include <lanes/io/detail/timer_registration.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/result.hpp>

namespace lanes {

struct timed_out {};

namespace detail {

// Waits for `child` to complete or `deadline` to pass, whichever is first;
// true when the child completed. Both registrations carry the same
// suspension generation, so the loser's late wake is ignored.
class join_or_deadline {
 public:
  join_or_deadline(task_header& child, clock::time_point deadline) noexcept : child_(child), deadline_(deadline) {}
  join_or_deadline(const join_or_deadline&) = delete;
  join_or_deadline& operator=(const join_or_deadline&) = delete;
  ~join_or_deadline() {
    if (joined_) child_.unregister_joiner();
  }

  bool await_ready() const noexcept { return finished(); }
  bool await_suspend(std::coroutine_handle<> h) {
    auto& self = require_current_task("co_await lanes::timeout");
    self.set_resume_point(h);
    waker w = self.make_waker();
    if (!child_.register_joiner(w)) return false;  // finished meanwhile
    joined_ = true;
    timer_.arm(self, deadline_);
    return true;
  }
  bool await_resume() noexcept {
    timer_.disarm();
    return finished();
  }

 private:
  bool finished() const noexcept { return (child_.load_state() & task_state::complete) != 0; }
  task_header& child_;
  clock::time_point deadline_;
  timer_registration timer_;
  bool joined_ = false;
};

template <class A>
decltype(auto) get_awaiter(A&& a) {
  if constexpr (requires { std::forward<A>(a).operator co_await(); }) {
    return std::forward<A>(a).operator co_await();
  } else if constexpr (requires { operator co_await(std::forward<A>(a)); }) {
    return operator co_await(std::forward<A>(a));
  } else {
    return std::forward<A>(a);
  }
}
template <class A>
using await_result_t = decltype(get_awaiter(std::declval<A>()).await_resume());

template <class T>
struct is_task : std::false_type {};
template <class T>
struct is_task<task<T>> : std::true_type {};

// Awaits `inner` in place until it completes or `deadline` passes. The
// timer is armed after the inner awaiter has registered, while this task is
// still running: a wake the inner registration sends meanwhile is held until
// the task has suspended (task_state::notified), and both wakers carry the
// same suspension generation, so the loser's late wake is ignored.
template <class Awaiter>
class deadline_race {
 public:
  using value_type = decltype(std::declval<Awaiter&>().await_resume());

  deadline_race(Awaiter& inner, clock::time_point deadline) noexcept : inner_(inner), deadline_(deadline) {}
  deadline_race(const deadline_race&) = delete;
  deadline_race& operator=(const deadline_race&) = delete;

  bool await_ready() { return inner_.await_ready(); }
  template <class Promise>
  bool await_suspend(std::coroutine_handle<Promise> h) {
    auto& self = require_current_task("co_await lanes::timeout");
    using suspend_result = decltype(inner_.await_suspend(h));
    static_assert(std::is_void_v<suspend_result> || std::is_same_v<suspend_result, bool>,
                  "lanes::timeout: an awaiter whose await_suspend transfers to another coroutine must be a task");
    if constexpr (std::is_same_v<suspend_result, bool>) {
      if (!inner_.await_suspend(h)) return false;  // completed without suspending: no timer
    } else {
      inner_.await_suspend(h);
    }
    timer_.arm(self, deadline_);
    armed_ = true;
    return true;
  }
  result<value_type, timed_out> await_resume() {
    // The timer fired: time out, even if the inner wake came too; the inner
    // awaiter, destroyed with the caller's frame, gives back what it got.
    if (armed_ && timer_.disarm()) return timed_out{};
    if constexpr (std::is_void_v<value_type>) {
      inner_.await_resume();
      return result<void, timed_out>();
    } else {
      return inner_.await_resume();
    }
  }

 private:
  Awaiter& inner_;
  clock::time_point deadline_;
  timer_registration timer_;
  bool armed_ = false;
};

// Aborts a child task whose joiner is destroyed before it took the result.
template <class T>
struct abort_unless_joined {
  join_handle<T>& child;
  bool joined = false;
  ~abort_unless_joined() {
    if (!joined) child.abort();
  }
};

}  // namespace detail

template <class T>
task<result<T, timed_out>> timeout_until(clock::time_point deadline, task<T> op) {
  auto child = spawn(std::move(op), "timeout");
  detail::abort_unless_joined<T> guard{child};
  if (!co_await detail::join_or_deadline(*child.header(), deadline)) {
    child.abort();
    try {
      guard.joined = true;
      if constexpr (std::is_void_v<T>) {
        co_await child;  // finished just before the abort landed: keep its result
        co_return result<T, timed_out>();
      } else {
        co_return co_await child;
      }
    } catch (const task_cancelled&) {
      co_return timed_out{};
    }
  }
  guard.joined = true;
  if constexpr (std::is_void_v<T>) {
    co_await child;
    co_return result<T, timed_out>();
  } else {
    co_return co_await child;
  }
}

// Any other awaitable: awaited in place against the deadline.
template <class Awaitable>
  requires(!detail::is_task<std::remove_cvref_t<Awaitable>>::value)
task<result<detail::await_result_t<Awaitable>, timed_out>> timeout_until(clock::time_point deadline, Awaitable op) {
  auto&& awaiter = detail::get_awaiter(std::move(op));  // may refer into `op`, which lives in this frame
  co_return co_await detail::deadline_race<std::remove_reference_t<decltype(awaiter)>>(awaiter, deadline);
}

template <class Rep, class Period, class Op>
auto timeout(std::chrono::duration<Rep, Period> d, Op op) {
  return timeout_until(clock::now() + std::chrono::duration_cast<clock::duration>(d), std::move(op));
}

}  // namespace lanes
