// timeout(d, op): the result of `op`, or timed_out if it has not finished
// within `d`. On time-out the operation is cancelled, and its cancellation
// has completed (its frame destroyed, its registrations removed) before
// timeout returns: nothing is left running in the background.
//
// How `op` runs depends on what it is (detail/guarded_race.hpp):
// - a lanes awaitable (semaphore::acquire(), a channel's recv(), a
//   join_handle, ...) is awaited in place, racing a timer armed for the
//   same suspension: no spawn, no allocation, and cancelling the task that
//   awaits the timeout cancels the operation synchronously. An awaitable
//   that completes without waiting wins even when the deadline has passed;
//   if both fire, the timer wins, and the operation's awaiter, destroyed
//   before timeout returns, gives back what it got (see docs/sync.md).
// - a task<T> runs as a child task on the same runtime (one spawn); on
//   time-out it is aborted and its cancellation awaited. If the task
//   awaiting the timeout is itself cancelled, the child is aborted with it.
#pragma once

#include <chrono>
#include <type_traits>
#include <utility>

#include <lanes/io/detail/guarded_race.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/result.hpp>

namespace lanes {

struct timed_out {};

template <class T>
task<result<T, timed_out>> timeout_until(clock::time_point deadline, task<T> op) {
  return detail::guarded_task<timed_out, detail::ready_first::operation>(std::move(op), sleep_until(deadline),
                                                                         "timeout");
}

// Any other awaitable: awaited in place against the deadline. An lvalue is
// awaited by reference (it must outlive the co_await; an lvalue awaiter
// may only be a sleep, as for select), an rvalue is moved in.
template <class Awaitable>
requires(!detail::is_task<std::remove_cvref_t<Awaitable>>::value)
    detail::guarded_race<timed_out, Awaitable, sleep_awaiter> timeout_until(clock::time_point deadline,
                                                                            Awaitable&& op) {
  return {std::forward<Awaitable>(op), sleep_until(deadline)};
}

template <class Rep, class Period, class Op>
decltype(auto) timeout(std::chrono::duration<Rep, Period> d, Op&& op) {
  return timeout_until(deadline_after(d), std::forward<Op>(op));
}

}  // namespace lanes
