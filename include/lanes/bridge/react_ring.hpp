// The io lane's side of a react ring: an io task feeds a react thread and
// awaits what comes back, suspending (never blocking its worker) when the
// ring is full or empty.
//
//   auto [orders_tx, orders_rx] = spsc_ring<order>::make(1024, {.producer_may_park = true});
//   auto [fills_tx, fills_rx]   = spsc_ring<fill>::make(1024, {.consumer_may_park = true});
//   // react thread: input(orders_rx, ...) pushing into fills_tx
//   // io task:
//   if (auto back = co_await lanes::send(orders_tx, o)) { /* react side gone */ }
//   while (auto f = co_await lanes::recv(fills_rx)) handle(*f);   // ends with closed
//   // or, a batch per wake-up:
//   while (co_await lanes::items_ready(fills_rx)) while (auto f = fills_rx.try_pop()) handle(*f);
//
// How the react side wakes the task: the suspended awaiter arms the ring
// side's wake slot with the task's waker; the react thread, after it
// publishes, pays a fence and one load of that slot, and only when the slot
// is armed takes it and schedules the task (a queue push, and a futex wake
// only if the io worker is asleep). Wake-ups are batched by construction:
// a slot is armed once per suspension, so however many items the react
// thread publishes before the task runs, it wakes the task once, and the
// task then finds them all.
//
// The ring must be made for it: send() needs producer_may_park, recv() and
// items_ready() need consumer_may_park (config_error otherwise, thrown at
// the co_await).
//
// Cancellation: an awaiter destroyed while suspended (timeout, abort,
// select) disarms its slot; if the react thread is waking it at that
// moment the destructor waits those few instructions out. Nothing is taken
// from or put into the ring by a cancelled await.
#pragma once

#include <coroutine>
#include <optional>
#include <type_traits>
#include <utility>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/react/detail/ring_side.hpp>
#include <lanes/react/spsc_ring.hpp>
#include <lanes/result.hpp>
#include <lanes/sync/closed.hpp>

namespace lanes {

namespace detail {

// The suspension part every ring awaiter shares: the task's waker behind a
// react wake_target, and whether the slot is still armed.
class ring_task_wait {
 public:
  ring_task_wait() = default;
  ring_task_wait(ring_task_wait&&) noexcept {}  // before it waits only
  ring_task_wait(const ring_task_wait&) = delete;
  ring_task_wait& operator=(const ring_task_wait&) = delete;

  // await_suspend: arms with `arm(react::detail::wake_target)`. True when suspended (the
  // wake-up is coming, or came already while this poll runs: the task is
  // then rescheduled when it ends); false when the ring was ready by the
  // time it was armed and no wake-up will come (resume now). Returning
  // false after a wake-up was sent would resume the task a second time,
  // spuriously, at its next await.
  template <class Arm>
  bool suspend(std::coroutine_handle<> h, const char* what, Arm&& arm) {
    auto& self = require_current_task(what);
    self.set_resume_point(h);
    waker_ = self.make_waker();
    if (arm(react::detail::wake_target{&wake, this})) {
      armed_ = true;
      return true;
    }
    waker_ = {};
    return false;
  }

  // await_suspend when the ring turned out ready but the task is out of
  // its cooperative budget: reschedule it once (others run first).
  static bool yield_if_out_of_budget(std::coroutine_handle<> h, const char* what) {
    if (coop_consume()) return false;
    auto& self = require_current_task(what);
    self.set_resume_point(h);
    self.make_waker().wake();  // running: it is rescheduled when this poll ends
    return true;
  }

  // await_resume and the destructor: takes the slot back. After this no
  // notifier is inside wake() for this awaiter (ring_wake_slot::disarm waits).
  template <class Disarm>
  void settle(Disarm&& disarm) noexcept {
    if (!armed_) return;
    armed_ = false;
    disarm();
  }

 private:
  static void wake(void* self) noexcept { std::move(static_cast<ring_task_wait*>(self)->waker_).wake(); }

  waker waker_;
  bool armed_ = false;
};

// The part of every ring awaiter but await_resume: wait until the side is
// ready, suspending the task on the side's wait slot. `what` names the
// operation in a runtime_misuse error ("co_await lanes::recv()").
template <class Side>
class ring_side_awaiter {
 public:
  // An empty handle never parks (its other side counts as gone: ready at
  // once), so only a real ring must have been made to park.
  ring_side_awaiter(Side& side, const char* what) : side_(side), what_(what) {
    if (side_ && !react::detail::ring_side<Side>::may_park(side_))
      react::detail::throw_not_made_to_park(react::detail::ring_side<Side>::name);
  }
  ring_side_awaiter(ring_side_awaiter&&) noexcept = default;
  ~ring_side_awaiter() { settle(); }

  bool await_ready() { return react::detail::ring_side<Side>::ready(side_) && coop_consume(); }
  bool await_suspend(std::coroutine_handle<> h) {
    if (react::detail::ring_side<Side>::ready(side_)) return ring_task_wait::yield_if_out_of_budget(h, what_);
    return wait_.suspend(
        h, what_, [this](react::detail::wake_target t) { return react::detail::ring_side<Side>::arm(side_, t); });
  }

 protected:
  // First thing in await_resume. Resumed only when the side is ready:
  // ring_wake_slot::notify_if wakes for nothing else, and this task is the
  // side's only user, so it is still ready.
  void settle() noexcept {
    wait_.settle([this] { side_.disarm_wait(); });
  }
  Side& side_;

 private:
  const char* what_;
  ring_task_wait wait_;
};

}  // namespace detail

// The oldest item, or closed once the producer is gone and the ring is
// empty. Takes the item only when it resumes (cancellation-safe).
template <class T>
class ring_recv_awaiter : public detail::ring_side_awaiter<react::ring_consumer<T>> {
 public:
  explicit ring_recv_awaiter(react::ring_consumer<T>& rx)
      : detail::ring_side_awaiter<react::ring_consumer<T>>(rx, "co_await lanes::recv()") {}
  result<T, closed> await_resume() {
    this->settle();
    if (std::optional<T> item = this->side_.try_pop()) return std::move(*item);
    return closed{};
  }
};

// True when `rx` has items (take them with try_pop, pop_n or read/consume:
// as many as there are, one wake-up for all), false once the producer is
// gone and the ring is empty.
template <class T>
class ring_items_ready_awaiter : public detail::ring_side_awaiter<react::ring_consumer<T>> {
 public:
  explicit ring_items_ready_awaiter(react::ring_consumer<T>& rx)
      : detail::ring_side_awaiter<react::ring_consumer<T>>(rx, "co_await lanes::items_ready()") {}
  bool await_resume() {
    this->settle();
    return !this->side_.empty();
  }
};

// std::nullopt once the value is in the ring; the value back when the
// consumer is gone. The value goes in only when the task resumes, so an
// await that is cancelled (a timeout that fires) never half-sent it.
template <class T>
class ring_send_awaiter : public detail::ring_side_awaiter<react::ring_producer<T>> {
 public:
  ring_send_awaiter(react::ring_producer<T>& tx, T value)
      : detail::ring_side_awaiter<react::ring_producer<T>>(tx, "co_await lanes::send()"), value_(std::move(value)) {}
  std::optional<T> await_resume() {
    this->settle();
    if (!this->side_.consumer_gone() && this->side_.try_push(std::move(value_))) return std::nullopt;
    return std::optional<T>(std::move(value_));
  }

 private:
  T value_;
};

// True when `tx` has a free slot (fill it with try_push, push_n or
// write/commit), false when the consumer is gone.
template <class T>
class ring_space_ready_awaiter : public detail::ring_side_awaiter<react::ring_producer<T>> {
 public:
  explicit ring_space_ready_awaiter(react::ring_producer<T>& tx)
      : detail::ring_side_awaiter<react::ring_producer<T>>(tx, "co_await lanes::space_ready()") {}
  bool await_resume() {
    this->settle();
    return !this->side_.consumer_gone();
  }
};

template <class T>
ring_recv_awaiter<T> recv(react::ring_consumer<T>& rx) {
  return ring_recv_awaiter<T>(rx);
}
template <class T>
ring_items_ready_awaiter<T> items_ready(react::ring_consumer<T>& rx) {
  return ring_items_ready_awaiter<T>(rx);
}
template <class T, class U>
requires std::is_constructible_v<T, U&&> ring_send_awaiter<T> send(react::ring_producer<T>& tx, U&& value) {
  return ring_send_awaiter<T>(tx, T(std::forward<U>(value)));
}
template <class T>
ring_space_ready_awaiter<T> space_ready(react::ring_producer<T>& tx) {
  return ring_space_ready_awaiter<T>(tx);
}

}  // namespace lanes
