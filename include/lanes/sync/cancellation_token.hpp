// cancellation_token: a request to stop, shared by everything that should
// stop together (a client request's sub-operations, a server's tasks).
//
//   lanes::cancellation_token request;
//   auto db = request.child();                        // cancelled with its parent
//   auto r = co_await lanes::with_cancellation(db, rx.recv());
//   if (!r) co_return;                                // r.error() is lanes::cancelled
//   ...
//   request.cancel();                                 // from any thread
//
// - A token is a handle: copies share one state. cancel() is idempotent,
//   never blocks on a waiter and may be called from any thread (not from a
//   signal handler: see signal_set).
// - child() makes a token that is cancelled when its parent is (or at once
//   if the parent already is); cancelling a child leaves the parent alone.
//   A child keeps its parent's state alive; a parent does not keep its
//   children's.
// - co_await token.cancelled() completes when the token is cancelled; it
//   takes nothing, so losing a race costs nothing (cancellation-safe).
// - with_cancellation(token, op) (compose/with_cancellation.hpp) makes any
//   lanes awaitable or task stop at cancellation with the `cancelled` error.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/sync/detail/condition_awaiter.hpp>
#include <lanes/sync/detail/waiter_list.hpp>

namespace lanes {

// An operation was stopped by its cancellation token.
struct cancelled {};

namespace detail {

class cancel_state : public std::enable_shared_from_this<cancel_state> {
 public:
  cancel_state() = default;
  explicit cancel_state(std::shared_ptr<cancel_state> parent) noexcept : parent_(std::move(parent)) {}
  cancel_state(const cancel_state&) = delete;
  cancel_state& operator=(const cancel_state&) = delete;
  ~cancel_state();

  // Links a new child under this state (or marks it cancelled at once).
  void adopt(cancel_state& child);
  void cancel();
  bool is_cancelled() const noexcept { return cancelled_.load(std::memory_order_acquire); }

  // The awaiter's side (detail/condition_awaiter.hpp).
  bool ready_locked() const noexcept { return is_cancelled(); }
  bool ready_unlocked() const noexcept { return is_cancelled(); }
  std::mutex mutex;
  waiter_list waiters;

 private:
  // cancelled_ is written under mutex; read without it by is_cancelled()
  // (acquire: whatever the canceller did before cancel() is visible).
  std::atomic<bool> cancelled_{false};
  std::shared_ptr<cancel_state> parent_;  // keeps the parent's state alive
  std::vector<cancel_state*> children_;   // guarded by mutex; a child unlinks itself when it dies
};

}  // namespace detail

class cancellation_token {
 public:
  // A new token, not cancelled, with no parent.
  cancellation_token() : state_(std::make_shared<detail::cancel_state>()) {}
  // A token is a shared handle, copied freely; moving one copies it, so a
  // moved-from token is still the same token (never an empty handle that
  // every call would dereference).
  cancellation_token(const cancellation_token&) = default;
  cancellation_token& operator=(const cancellation_token&) = default;
  // NOLINTNEXTLINE(performance-move-constructor-init): the copy is the point
  cancellation_token(cancellation_token&& other) noexcept : state_(other.state_) {}
  cancellation_token& operator=(cancellation_token&& other) noexcept {
    state_ = other.state_;
    return *this;
  }
  ~cancellation_token() = default;

  // Cancels this token and every token below it; wakes every task waiting
  // in cancelled() (or in a with_cancellation) on them.
  void cancel() const { state_->cancel(); }
  bool is_cancelled() const noexcept { return state_->is_cancelled(); }
  // A token cancelled with this one (and on its own by its own cancel()).
  cancellation_token child() const;

  using awaiter = detail::condition_awaiter<detail::cancel_state, std::shared_ptr<detail::cancel_state>>;

  // Completes when the token is cancelled (at once if it already is).
  awaiter cancelled() const noexcept { return awaiter(*state_, state_, "co_await cancellation_token::cancelled()"); }

 private:
  explicit cancellation_token(std::shared_ptr<detail::cancel_state> s) noexcept : state_(std::move(s)) {}
  std::shared_ptr<detail::cancel_state> state_;
};

}  // namespace lanes
