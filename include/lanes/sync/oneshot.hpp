// oneshot<T>: one value, sent once from any thread (an io task, a compute
// job, a plain thread), awaited by one io task.
//
//   auto [tx, rx] = lanes::oneshot<int>();
//   std::thread([tx = std::move(tx)]() mutable { (void)std::move(tx).send(42); }).detach();
//   lanes::result<int, lanes::closed> r = co_await rx;   // 42, or closed
//
// - A sender destroyed without sending gives the receiver `closed`: never a
//   hang, never a crash.
// - A receiver destroyed first makes send() fail and hand the value back.
// - Cancellation-safe: if the task awaiting the receiver is cancelled, the
//   value stays in the channel; awaiting the same receiver again gets it.
#pragma once

#include <coroutine>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include <lanes/detail/handle_state.hpp>
#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/detail/waiter_slot.hpp>
#include <lanes/result.hpp>
#include <lanes/sync/closed.hpp>

namespace lanes {

namespace detail {

template <class T>
struct oneshot_state {
  std::mutex mutex;
  std::optional<T> value;
  bool sender_done = false;  // sent, or the sender is gone
  bool receiver_gone = false;
  waiter_slot waiter;  // the receiving task, while it waits
};

}  // namespace detail

template <class T>
class oneshot_sender {
 public:
  explicit oneshot_sender(std::shared_ptr<detail::oneshot_state<T>> s) noexcept : state_(std::move(s)) {}
  oneshot_sender(oneshot_sender&&) noexcept = default;
  oneshot_sender& operator=(oneshot_sender&& other) noexcept {
    if (this != &other) {
      finish(std::nullopt);
      state_ = std::move(other.state_);
    }
    return *this;
  }
  oneshot_sender(const oneshot_sender&) = delete;
  oneshot_sender& operator=(const oneshot_sender&) = delete;
  ~oneshot_sender() { finish(std::nullopt); }

  // Sends the value. Returns std::nullopt on success, or hands the value
  // back when the receiver is gone (or this sender was used already).
  [[nodiscard]] std::optional<T> send(T value) && {
    if (!state_) return std::optional<T>(std::move(value));
    return finish(std::optional<T>(std::move(value)));
  }

  // True once the receiver is gone: sending would fail.
  bool is_closed() const {
    if (!state_) return true;
    std::lock_guard lock(state_->mutex);
    return state_->receiver_gone;
  }

 private:
  // Delivers `value` (or, with nullopt, the news that none will come).
  std::optional<T> finish(std::optional<T> value) {
    if (!state_) return value;
    // The state is released only after its mutex is: this may be the last reference.
    const auto state = std::move(state_);
    detail::waker to_wake;
    {
      std::lock_guard lock(state->mutex);
      if (state->receiver_gone) return value;
      if (value) state->value.emplace(std::move(*value));
      state->sender_done = true;
      to_wake = state->waiter.take();
    }
    if (to_wake) std::move(to_wake).wake();
    return std::nullopt;
  }

  std::shared_ptr<detail::oneshot_state<T>> state_;
};

template <class T>
class oneshot_receiver {
 public:
  explicit oneshot_receiver(std::shared_ptr<detail::oneshot_state<T>> s) noexcept : state_(std::move(s)) {}
  oneshot_receiver(oneshot_receiver&&) noexcept = default;
  // The receiver given up tells its sender it is gone first, as its
  // destructor would (a defaulted assignment let go of it silently: the
  // send reported success for a value no one would read).
  oneshot_receiver& operator=(oneshot_receiver&& other) noexcept {
    if (this != &other) {
      drop();
      state_ = std::move(other.state_);
    }
    return *this;
  }
  oneshot_receiver(const oneshot_receiver&) = delete;
  oneshot_receiver& operator=(const oneshot_receiver&) = delete;
  ~oneshot_receiver() { drop(); }

  // Without waiting: the value, `closed` if the sender is gone without
  // sending, or std::nullopt if nothing has happened yet.
  std::optional<result<T, closed>> try_recv() {
    auto& s = detail::handle_state(state_, "lanes::oneshot_receiver::try_recv");
    std::lock_guard lock(s.mutex);
    if (!s.sender_done) return std::nullopt;
    return take_from(s);
  }

  class awaiter {
   public:
    explicit awaiter(detail::oneshot_state<T>& s) noexcept : state_(s) {}
    awaiter(awaiter&& other) noexcept : state_(other.state_) {}  // before it waits only
    awaiter(const awaiter&) = delete;
    awaiter& operator=(const awaiter&) = delete;
    ~awaiter() {
      if (waiting_ == nullptr) return;
      detail::waker dropped;
      std::lock_guard lock(state_.mutex);
      dropped = state_.waiter.leave(waiting_);  // cancelled while waiting: the value, if any, stays
    }
    bool await_ready() {
      std::lock_guard lock(state_.mutex);
      return state_.sender_done && detail::coop_consume();
    }
    bool await_suspend(std::coroutine_handle<> h) {
      auto& self = detail::require_current_task("co_await oneshot_receiver");
      self.set_resume_point(h);
      detail::waker w = self.make_waker();
      std::lock_guard lock(state_.mutex);
      if (state_.sender_done) {
        if (detail::coop_consume()) return false;  // arrived meanwhile: take it now
        std::move(w).wake();                       // out of coop budget: yield once first
        return true;
      }
      state_.waiter.occupy(std::move(w), "co_await lanes::oneshot_receiver");
      waiting_ = &self;
      return true;
    }
    result<T, closed> await_resume() {
      waiting_ = nullptr;
      std::lock_guard lock(state_.mutex);
      return take_from(state_);
    }

   private:
    detail::oneshot_state<T>& state_;
    const detail::task_header* waiting_ = nullptr;  // the task whose waker is in the slot
  };

  // An empty (moved-from) receiver is a runtime_misuse (lanes/detail/handle_state.hpp).
  awaiter operator co_await() & { return awaiter(detail::handle_state(state_, "co_await lanes::oneshot_receiver")); }
  awaiter operator co_await() && { return awaiter(detail::handle_state(state_, "co_await lanes::oneshot_receiver")); }

 private:
  static result<T, closed> take_from(detail::oneshot_state<T>& s) {
    if (!s.value) return closed{};
    T v = std::move(*s.value);
    s.value.reset();
    return v;
  }

  void drop() noexcept {
    if (!state_) return;
    const auto state = std::move(state_);  // destroyed last, after the lock
    detail::waker dropped;                 // released after the lock
    std::lock_guard lock(state->mutex);
    state->receiver_gone = true;
    dropped = state->waiter.take();
  }

  std::shared_ptr<detail::oneshot_state<T>> state_;
};

// A connected sender and receiver.
template <class T>
std::pair<oneshot_sender<T>, oneshot_receiver<T>> oneshot() {
  auto state = std::make_shared<detail::oneshot_state<T>>();
  return {oneshot_sender<T>(state), oneshot_receiver<T>(state)};
}

}  // namespace lanes
