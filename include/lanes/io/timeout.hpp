// timeout(d, op): the result of `op`, or timed_out if it has not finished
// within `d`. On time-out the operation is cancelled, and its cancellation
// has completed (its frame destroyed, its registrations removed) before
// timeout returns: nothing is left running in the background.
//
// `op` is a task<T> or any lanes awaitable; it runs as a child task on the
// same runtime (one spawn), which is what lets the waiting side race its
// completion against a timer.
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

}  // namespace detail

template <class T>
task<result<T, timed_out>> timeout_until(clock::time_point deadline, task<T> op) {
  auto child = spawn(std::move(op), "timeout");
  if (!co_await detail::join_or_deadline(*child.header(), deadline)) {
    child.abort();
    try {
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
  if constexpr (std::is_void_v<T>) {
    co_await child;
    co_return result<T, timed_out>();
  } else {
    co_return co_await child;
  }
}

template <class Rep, class Period, class T>
task<result<T, timed_out>> timeout(std::chrono::duration<Rep, Period> d, task<T> op) {
  return timeout_until(clock::now() + std::chrono::duration_cast<clock::duration>(d), std::move(op));
}

// Any other awaitable: wrapped in a task that awaits it.
template <class Rep, class Period, class Awaitable>
  requires(!detail::is_task<std::remove_cvref_t<Awaitable>>::value)
auto timeout(std::chrono::duration<Rep, Period> d, Awaitable op) {
  using T = detail::await_result_t<Awaitable>;
  return timeout(d, [](Awaitable a) -> task<T> { co_return co_await std::move(a); }(std::move(op)));
}

}  // namespace lanes
