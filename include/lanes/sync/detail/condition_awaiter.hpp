// condition_awaiter: waits until a condition that only ever goes from
// false to true holds (a token is cancelled, a tracker is closed and
// empty). `State` provides `std::mutex mutex`, `waiter_list waiters` and
// `bool ready_locked() const` (and, optionally, `ready_unlocked()`, read
// without the lock); whoever makes the condition true does so
// under the mutex, then wakes every waiter it pops (broadcast). The
// awaiter keeps the state alive through `Keep` (a shared_ptr).
//
// It takes nothing, so losing a race or being cancelled costs nothing.
// A condition found true in await_suspend is reported through the waker
// rather than by returning false, so a race this is a branch of sees it fire.
#pragma once

#include <coroutine>
#include <mutex>
#include <utility>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/sync/detail/waiter_list.hpp>

namespace lanes::detail {

template <class State, class Keep>
class condition_awaiter {
 public:
  condition_awaiter(State& s, Keep keep, const char* what) noexcept : state_(&s), keep_(std::move(keep)), what_(what) {}
  condition_awaiter(condition_awaiter&& other) noexcept  // before it waits only
      : state_(other.state_), keep_(std::move(other.keep_)), what_(other.what_) {}
  condition_awaiter(const condition_awaiter&) = delete;
  condition_awaiter& operator=(const condition_awaiter&) = delete;
  ~condition_awaiter() {
    if (!waited_) return;
    std::lock_guard lock(state_->mutex);
    state_->waiters.remove(node_);  // cancelled (or lost a race) while waiting
  }

  bool await_ready() const {
    if constexpr (requires { state_->ready_unlocked(); }) {  // an atomic flag: no lock on the hot path
      return state_->ready_unlocked() && coop_consume();
    } else {
      std::lock_guard lock(state_->mutex);
      return state_->ready_locked() && coop_consume();
    }
  }
  bool await_suspend(std::coroutine_handle<> h) {
    auto& self = require_current_task(what_);
    self.set_resume_point(h);
    node_.to_wake = self.make_waker();
    std::unique_lock lock(state_->mutex);
    if (state_->ready_locked()) {
      lock.unlock();
      std::move(node_.to_wake).wake();
      return true;
    }
    state_->waiters.push_back(node_);
    waited_ = true;
    return true;
  }
  void await_resume() const noexcept {}

 private:
  State* state_;
  Keep keep_;
  const char* what_;
  waiter_node node_;
  bool waited_ = false;
};

// Under the state's mutex: pops every waiter, to be woken after unlocking.
template <class Wakers>
void pop_all_waiters(waiter_list& waiters, Wakers& out) {
  while (!waiters.empty()) out.push_back(waiters.pop_front_notified(true));
}

}  // namespace lanes::detail
