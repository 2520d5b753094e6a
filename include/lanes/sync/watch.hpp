// watch<T>: the latest value, and a way to wait until it changes. One
// sender, any number of receivers (they copy); each receiver remembers the
// last version it has seen.
//
//   auto [tx, rx] = lanes::watch<Config>(initial);
//   tx.send(next);                                  // from any thread
//   while (co_await rx.changed()) apply(rx.borrow_and_update());
//
// changed() completes when a version newer than the receiver's is sent, or
// with `closed` once the sender is gone (after the receiver has seen the
// last version). Intermediate values may be skipped: a receiver sees the
// latest. Cancellation-safe: a cancelled changed() leaves the receiver's
// seen version alone, so the change is still reported next time.
#pragma once

#include <coroutine>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <lanes/detail/handle_state.hpp>
#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/result.hpp>
#include <lanes/sync/closed.hpp>
#include <lanes/sync/detail/waiter_list.hpp>

namespace lanes {

namespace detail {

template <class T>
struct watch_state {
  explicit watch_state(T initial) : value(std::move(initial)) {}
  std::mutex mutex;
  T value;
  std::uint64_t version = 0;
  bool sender_alive = true;
  std::size_t receivers_alive = 1;
  waiter_list waiting;

  // Wakes every waiting receiver; call with the lock held, wake after.
  void wake_all_locked(std::vector<waker>& to_wake) {
    while (waiting.front() != nullptr) to_wake.push_back(waiting.pop_front_notified(true));
  }
};

}  // namespace detail

template <class T>
class watch_sender {
  using state_t = detail::watch_state<T>;

 public:
  explicit watch_sender(std::shared_ptr<state_t> s) noexcept : state_(std::move(s)) {}
  watch_sender(watch_sender&&) noexcept = default;
  watch_sender& operator=(watch_sender&& other) noexcept {
    if (this != &other) {
      drop();
      state_ = std::move(other.state_);
    }
    return *this;
  }
  watch_sender(const watch_sender&) = delete;
  watch_sender& operator=(const watch_sender&) = delete;
  ~watch_sender() { drop(); }

  // Replaces the value and wakes the receivers. False (the value is still
  // stored) when no receiver is left to see it.
  bool send(T value) {
    return modify([&](T& current) { current = std::move(value); });
  }
  // Changes the value in place under the channel's lock.
  template <class F>
  bool modify(F&& change) {
    state_t& s = detail::handle_state(state_, "lanes::watch_sender::send/modify");
    std::vector<detail::waker> to_wake;
    bool anyone = false;
    {
      std::lock_guard lock(s.mutex);
      change(s.value);
      ++s.version;
      anyone = s.receivers_alive > 0;
      s.wake_all_locked(to_wake);
    }
    for (auto& w : to_wake) std::move(w).wake();
    return anyone;
  }
  T borrow() const {
    state_t& s = detail::handle_state(state_, "lanes::watch_sender::borrow");
    std::lock_guard lock(s.mutex);
    return s.value;
  }

 private:
  void drop() noexcept {
    if (!state_) return;
    const auto state = std::move(state_);  // released after the mutex below
    std::vector<detail::waker> to_wake;
    {
      std::lock_guard lock(state->mutex);
      state->sender_alive = false;
      state->wake_all_locked(to_wake);
    }
    for (auto& w : to_wake) std::move(w).wake();
  }
  std::shared_ptr<state_t> state_;
};

template <class T>
class watch_receiver {
  using state_t = detail::watch_state<T>;

 public:
  watch_receiver(std::shared_ptr<state_t> s, std::uint64_t seen) noexcept : state_(std::move(s)), seen_(seen) {}
  // A copy of an empty (moved-from) receiver is empty too.
  watch_receiver(const watch_receiver& other) : state_(other.state_), seen_(other.seen_) {
    if (!state_) return;
    std::lock_guard lock(state_->mutex);
    ++state_->receivers_alive;
  }
  watch_receiver& operator=(const watch_receiver& other) {
    if (this != &other) *this = watch_receiver(other);
    return *this;
  }
  watch_receiver(watch_receiver&& other) noexcept = default;
  watch_receiver& operator=(watch_receiver&& other) noexcept {
    if (this != &other) {
      drop();
      state_ = std::move(other.state_);
      seen_ = other.seen_;
    }
    return *this;
  }
  ~watch_receiver() { drop(); }

  // The current value (a copy, taken under the lock).
  T borrow() const {
    state_t& s = detail::handle_state(state_, "lanes::watch_receiver::borrow");
    std::lock_guard lock(s.mutex);
    return s.value;
  }
  // The current value, and marks it seen.
  T borrow_and_update() {
    state_t& s = detail::handle_state(state_, "lanes::watch_receiver::borrow_and_update");
    std::lock_guard lock(s.mutex);
    seen_ = s.version;
    return s.value;
  }
  bool has_changed() const {
    state_t& s = detail::handle_state(state_, "lanes::watch_receiver::has_changed");
    std::lock_guard lock(s.mutex);
    return s.version != seen_;
  }

  class changed_awaiter {
   public:
    explicit changed_awaiter(watch_receiver& r) noexcept : owner_(r) {}
    changed_awaiter(changed_awaiter&& other) noexcept : owner_(other.owner_) {}
    changed_awaiter(const changed_awaiter&) = delete;
    changed_awaiter& operator=(const changed_awaiter&) = delete;
    ~changed_awaiter() {
      std::lock_guard lock(owner_.state_->mutex);
      if (node_.linked) owner_.state_->waiting.remove(node_);
    }
    bool await_ready() {
      std::lock_guard lock(owner_.state_->mutex);
      return decided_locked() && detail::coop_consume();
    }
    bool await_suspend(std::coroutine_handle<> h) {
      auto& self = detail::require_current_task("co_await watch_receiver::changed()");
      self.set_resume_point(h);
      node_.to_wake = self.make_waker();
      std::lock_guard lock(owner_.state_->mutex);
      if (decided_locked()) {
        node_.to_wake = {};
        return false;
      }
      owner_.state_->waiting.push_back(node_);
      return true;
    }
    // Success when a newer version exists (now marked seen), else closed.
    result<void, closed> await_resume() {
      std::lock_guard lock(owner_.state_->mutex);
      if (owner_.state_->version == owner_.seen_) return closed{};
      owner_.seen_ = owner_.state_->version;
      return {};
    }

   private:
    bool decided_locked() const { return owner_.state_->version != owner_.seen_ || !owner_.state_->sender_alive; }
    watch_receiver& owner_;
    detail::waiter_node node_;
  };

  changed_awaiter changed() {
    (void)detail::handle_state(state_, "lanes::watch_receiver::changed");
    return changed_awaiter(*this);
  }

 private:
  void drop() noexcept {
    if (!state_) return;
    const auto state = std::move(state_);
    std::lock_guard lock(state->mutex);
    --state->receivers_alive;
  }

  std::shared_ptr<state_t> state_;
  std::uint64_t seen_ = 0;
};

template <class T>
std::pair<watch_sender<T>, watch_receiver<T>> watch(T initial) {
  auto s = std::make_shared<detail::watch_state<T>>(std::move(initial));
  return {watch_sender<T>(s), watch_receiver<T>(s, 0)};
}

}  // namespace lanes
