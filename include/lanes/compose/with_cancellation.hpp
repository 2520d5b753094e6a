// with_cancellation(token, op): the result of `op`, or the `cancelled`
// error once `token` is cancelled; the operation is then cancelled, and
// its cancellation has completed before with_cancellation returns.
//
//   auto line = co_await lanes::with_cancellation(request, rx.recv());
//   if (!line) co_return;                  // line.error() is lanes::cancelled
//
// `op` is any lanes awaitable (sleep, a channel's send or recv, a
// semaphore or mutex acquire, notified(), a join_handle, offload(f), a
// react ring's send/recv) or a task<T>. Awaitables wait in place, racing
// the token in the same suspension (no spawn); a task runs as a child task
// that is aborted on cancellation (detail/guarded_race.hpp). A token
// already cancelled stops the operation before it starts, even one that is
// ready (a loop over with_cancellation(t, rx.recv()) stops at once rather
// than draining the channel). If both fire, cancellation wins, and the
// operation gives back what it was granted (docs/compose.md).
#pragma once

#include <type_traits>
#include <utility>

#include <lanes/io/detail/guarded_race.hpp>
#include <lanes/sync/cancellation_token.hpp>

namespace lanes {

template <class T>
task<result<T, cancelled>> with_cancellation(const cancellation_token& token, task<T> op) {
  return detail::guarded_task<cancelled, detail::ready_first::guard>(std::move(op), token.cancelled(),
                                                                     "with_cancellation");
}

template <class Awaitable>
requires(!detail::is_task<std::remove_cvref_t<Awaitable>>::value)
    detail::guarded_race<cancelled, Awaitable, cancellation_token::awaiter,
                         detail::ready_first::guard> with_cancellation(const cancellation_token& token,
                                                                       Awaitable&& op) {
  return {std::forward<Awaitable>(op), token.cancelled()};
}

}  // namespace lanes
