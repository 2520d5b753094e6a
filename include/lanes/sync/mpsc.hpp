// mpsc: a multi-producer, single-consumer channel for io tasks.
//
//   auto [tx, rx] = lanes::mpsc_bounded<Job>(64);   // or lanes::mpsc_unbounded<Job>()
//   auto tx2 = tx;                                   // senders copy
//   if (auto back = co_await tx.send(job)) { ... }   // receiver gone: the job comes back
//   while (auto job = co_await rx.recv()) run(*job); // ends with closed once every sender is gone
//
// Bounded: send waits (asynchronously, first come first served) for room;
// that is the back-pressure. Unbounded: send never waits.
//
// Cancellation:
// - recv is cancellation-safe: a message is taken from the channel only
//   when the receiving task resumes; a cancelled recv takes nothing.
// - a send cancelled while it waits for room delivers nothing (its value
//   is destroyed with it) and gives its place, or the room it was granted,
//   to the next sender: never a lost slot, never a duplicate.
// Close: when every sender is gone, recv drains what is queued, then
// returns `closed`. rx.close() (or dropping the receiver) makes every send
// fail and hand its value back.
#pragma once

#include <coroutine>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <lanes/detail/handle_state.hpp>
#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/detail/waiter_slot.hpp>
#include <lanes/result.hpp>
#include <lanes/sync/closed.hpp>
#include <lanes/sync/detail/waiter_list.hpp>

namespace lanes {

namespace detail {

template <class T>
struct mpsc_state {
  std::mutex mutex;
  std::deque<T> queue;
  std::size_t capacity = 0;  // 0: unbounded
  std::size_t reserved = 0;  // room granted to waiting senders that have not pushed yet
  waiter_list senders;       // senders waiting for room
  waiter_slot receiver;      // the receiving task, while it waits
  std::size_t senders_alive = 0;
  bool receiver_closed = false;

  bool has_room_locked() const { return capacity == 0 || queue.size() + reserved < capacity; }

  // Grants room to waiting senders while there is some.
  void grant_locked(std::vector<waker>& to_wake) {
    while (senders.front() != nullptr && has_room_locked()) {
      ++reserved;
      to_wake.push_back(senders.pop_front_notified());
    }
  }
  // Pushes under the lock; returns the receiver's waker to wake after unlocking.
  waker push_locked(T&& value) {
    queue.push_back(std::move(value));
    return receiver.take();
  }
};

}  // namespace detail

// What try_send says when it cannot send now; the value comes back.
template <class T>
struct try_send_error {
  enum class reason { full, closed } why;
  T value;
};

template <class T>
class mpsc_sender {
  using state_t = detail::mpsc_state<T>;

 public:
  explicit mpsc_sender(std::shared_ptr<state_t> s) noexcept : state_(std::move(s)) {}
  // A copy of an empty (moved-from) sender is empty too.
  mpsc_sender(const mpsc_sender& other) : state_(other.state_) {
    if (!state_) return;
    std::lock_guard lock(state_->mutex);
    ++state_->senders_alive;
  }
  mpsc_sender& operator=(const mpsc_sender& other) {
    if (this != &other) *this = mpsc_sender(other);
    return *this;
  }
  mpsc_sender(mpsc_sender&&) noexcept = default;
  mpsc_sender& operator=(mpsc_sender&& other) noexcept {
    if (this != &other) {
      drop();
      state_ = std::move(other.state_);
    }
    return *this;
  }
  ~mpsc_sender() { drop(); }

  // Sends now if there is room; never waits.
  result<void, try_send_error<T>> try_send(T value) {
    state_t& s = detail::handle_state(state_, "lanes::mpsc_sender::try_send");
    detail::waker to_wake;
    {
      std::lock_guard lock(s.mutex);
      if (s.receiver_closed) return try_send_error<T>{try_send_error<T>::reason::closed, std::move(value)};
      if (!s.senders.empty() || !s.has_room_locked()) {
        return try_send_error<T>{try_send_error<T>::reason::full, std::move(value)};
      }
      to_wake = s.push_locked(std::move(value));
    }
    if (to_wake) std::move(to_wake).wake();
    return {};
  }

  bool is_closed() const {
    state_t& s = detail::handle_state(state_, "lanes::mpsc_sender::is_closed");
    std::lock_guard lock(s.mutex);
    return s.receiver_closed;
  }

  class send_awaiter {
   public:
    send_awaiter(state_t& s, T value) : state_(s), value_(std::move(value)) {}
    send_awaiter(send_awaiter&& other) noexcept : state_(other.state_), value_(std::move(other.value_)) {}
    send_awaiter(const send_awaiter&) = delete;
    send_awaiter& operator=(const send_awaiter&) = delete;
    ~send_awaiter() {
      if (!queued_) return;
      std::vector<detail::waker> to_wake;
      {
        std::lock_guard lock(state_.mutex);
        if (node_.linked) {
          state_.senders.remove(node_);  // cancelled while waiting: nothing sent
        } else if (node_.notified && !node_.refused && !done_) {
          --state_.reserved;  // granted room, cancelled before it ran: pass the room on
          state_.grant_locked(to_wake);
        }
      }
      for (auto& w : to_wake) std::move(w).wake();
    }

    bool await_ready() { return try_now(); }
    bool await_suspend(std::coroutine_handle<> h) {
      auto& self = detail::require_current_task("co_await mpsc_sender::send()");
      self.set_resume_point(h);
      node_.to_wake = self.make_waker();
      std::lock_guard lock(state_.mutex);
      if (state_.receiver_closed || (state_.senders.empty() && state_.has_room_locked())) {
        node_.to_wake = {};
        return false;  // await_resume sends (or refuses) now
      }
      state_.senders.push_back(node_);
      queued_ = true;
      return true;
    }
    // std::nullopt when sent; the value when the receiver is gone.
    std::optional<T> await_resume() {
      if (done_) return sent_ ? std::nullopt : std::optional<T>(std::move(value_));
      detail::waker to_wake;
      {
        std::lock_guard lock(state_.mutex);
        done_ = true;
        if (state_.receiver_closed || node_.refused) {
          if (node_.notified && !node_.refused) --state_.reserved;
          return std::optional<T>(std::move(value_));
        }
        if (node_.notified) --state_.reserved;  // the granted room is now filled
        to_wake = state_.push_locked(std::move(value_));
      }
      if (to_wake) std::move(to_wake).wake();
      return std::nullopt;
    }

   private:
    // Sends at once when nobody waits ahead and there is room (or refuses
    // when closed); true when the outcome is decided.
    bool try_now() {
      detail::waker to_wake;
      {
        std::lock_guard lock(state_.mutex);
        if (state_.receiver_closed) {
          done_ = true;
          return true;
        }
        if (!state_.senders.empty() || !state_.has_room_locked()) return false;
        to_wake = state_.push_locked(std::move(value_));
        done_ = sent_ = true;
      }
      if (to_wake) std::move(to_wake).wake();
      return true;
    }

    state_t& state_;
    T value_;
    detail::waiter_node node_;
    bool queued_ = false;
    bool done_ = false;
    bool sent_ = false;
  };

  // co_await: std::nullopt once sent, or the value back if the receiver is gone.
  send_awaiter send(T value) {
    return send_awaiter(detail::handle_state(state_, "lanes::mpsc_sender::send"), std::move(value));
  }

 private:
  void drop() noexcept {
    if (!state_) return;
    const auto state = std::move(state_);  // released after the mutex below
    detail::waker to_wake;
    {
      std::lock_guard lock(state->mutex);
      if (--state->senders_alive == 0) to_wake = state->receiver.take();
    }
    if (to_wake) std::move(to_wake).wake();
  }

  std::shared_ptr<state_t> state_;
};

template <class T>
class mpsc_receiver {
  using state_t = detail::mpsc_state<T>;

 public:
  explicit mpsc_receiver(std::shared_ptr<state_t> s) noexcept : state_(std::move(s)) {}
  mpsc_receiver(mpsc_receiver&&) noexcept = default;
  // The receiver given up closes its channel first, as its destructor would
  // (a defaulted assignment let go of it silently: its senders kept
  // waiting for room that no one would make).
  mpsc_receiver& operator=(mpsc_receiver&& other) noexcept {
    if (this != &other) {
      if (state_) close_state(*state_);
      state_ = std::move(other.state_);
    }
    return *this;
  }
  mpsc_receiver(const mpsc_receiver&) = delete;
  mpsc_receiver& operator=(const mpsc_receiver&) = delete;
  ~mpsc_receiver() {
    if (state_) close_state(*state_);
  }

  // Refuses further sends (waiting senders get their values back); what is
  // queued can still be received.
  void close() { close_state(detail::handle_state(state_, "lanes::mpsc_receiver::close")); }

  // Without waiting: a message, `closed` (all senders gone and nothing
  // queued), or std::nullopt (nothing now).
  std::optional<result<T, closed>> try_recv() {
    state_t& s = detail::handle_state(state_, "lanes::mpsc_receiver::try_recv");
    std::vector<detail::waker> to_wake;
    std::optional<T> value;
    take outcome;
    {
      std::lock_guard lock(s.mutex);
      outcome = take_locked(s, to_wake, value);
    }
    for (auto& w : to_wake) std::move(w).wake();
    if (outcome == take::empty) return std::nullopt;
    // Built in place: g++ 12 misreads a moved variant here as uninitialised.
    if (outcome == take::closed) return std::optional<result<T, closed>>(std::in_place, closed{});
    return std::optional<result<T, closed>>(std::in_place, std::move(*value));
  }

  std::size_t size() const {
    state_t& s = detail::handle_state(state_, "lanes::mpsc_receiver::size");
    std::lock_guard lock(s.mutex);
    return s.queue.size();
  }

  class recv_awaiter {
   public:
    explicit recv_awaiter(state_t& s) noexcept : state_(s) {}
    recv_awaiter(recv_awaiter&& other) noexcept : state_(other.state_) {}
    recv_awaiter(const recv_awaiter&) = delete;
    recv_awaiter& operator=(const recv_awaiter&) = delete;
    ~recv_awaiter() {
      if (waiting_ == nullptr) return;
      detail::waker dropped;
      std::lock_guard lock(state_.mutex);
      dropped = state_.receiver.leave(waiting_);  // cancelled: nothing was taken
    }
    bool await_ready() {
      std::lock_guard lock(state_.mutex);
      return ready_locked() && detail::coop_consume();
    }
    bool await_suspend(std::coroutine_handle<> h) {
      auto& self = detail::require_current_task("co_await mpsc_receiver::recv()");
      self.set_resume_point(h);
      detail::waker w = self.make_waker();
      std::lock_guard lock(state_.mutex);
      if (ready_locked()) {
        if (detail::coop_consume()) return false;
        std::move(w).wake();  // out of coop budget: yield once first
        return true;
      }
      state_.receiver.occupy(std::move(w), "lanes::mpsc_receiver::recv");
      waiting_ = &self;
      return true;
    }
    // A message, or `closed` once every sender is gone and the queue is empty.
    result<T, closed> await_resume() {
      waiting_ = nullptr;
      std::vector<detail::waker> to_wake;
      std::optional<T> value;
      {
        std::lock_guard lock(state_.mutex);
        take_locked(state_, to_wake, value);
      }
      for (auto& w : to_wake) std::move(w).wake();
      // Woken only by a message or by the last sender leaving: no value means closed.
      if (!value) return closed{};
      return std::move(*value);
    }

   private:
    bool ready_locked() const { return !state_.queue.empty() || state_.senders_alive == 0; }
    state_t& state_;
    const detail::task_header* waiting_ = nullptr;  // the task whose waker is in the slot
  };

  recv_awaiter recv() { return recv_awaiter(detail::handle_state(state_, "lanes::mpsc_receiver::recv")); }

 private:
  void close_state(state_t& s) noexcept {
    std::vector<detail::waker> to_wake;
    {
      std::lock_guard lock(s.mutex);
      s.receiver_closed = true;
      while (detail::waiter_node* node = s.senders.front()) {
        to_wake.push_back(s.senders.pop_front_notified());
        node->refused = true;
      }
    }
    for (auto& w : to_wake) std::move(w).wake();
  }

  enum class take { value, empty, closed };
  static take take_locked(state_t& s, std::vector<detail::waker>& to_wake, std::optional<T>& value) {
    if (s.queue.empty()) return s.senders_alive == 0 ? take::closed : take::empty;
    value.emplace(std::move(s.queue.front()));
    s.queue.pop_front();
    s.grant_locked(to_wake);  // room for a waiting sender
    return take::value;
  }

  std::shared_ptr<state_t> state_;
};

template <class T>
std::pair<mpsc_sender<T>, mpsc_receiver<T>> mpsc_bounded(std::size_t capacity) {
  if (capacity == 0) throw std::invalid_argument("lanes::mpsc_bounded: capacity must be at least 1");
  auto s = std::make_shared<detail::mpsc_state<T>>();
  s->capacity = capacity;
  s->senders_alive = 1;
  return {mpsc_sender<T>(s), mpsc_receiver<T>(s)};
}

template <class T>
std::pair<mpsc_sender<T>, mpsc_receiver<T>> mpsc_unbounded() {
  auto s = std::make_shared<detail::mpsc_state<T>>();
  s->senders_alive = 1;
  return {mpsc_sender<T>(s), mpsc_receiver<T>(s)};
}

}  // namespace lanes
