// semaphore: a fair (first come, first served) counting semaphore for io
// tasks: the bound on work in flight that the bridge between lanes is made
// of.
//
//   lanes::semaphore slots(2);
//   auto permit = co_await slots.acquire();      // result<semaphore_permit, closed>
//   if (!permit) co_return busy();               // closed
//   ... two at a time here ...                   // the permit returns when destroyed
//
// - Fair: a waiter asking for many permits is not overtaken by later ones
//   asking for fewer.
// - Permits are RAII. A permit from acquire_owned() keeps the semaphore
//   alive (shared_ptr), so it may outlive the scope that made it.
// - close() wakes every waiter with `closed`; later acquires fail at once.
// - Cancellation-safe: a task cancelled while it waits leaves the queue and
//   loses nothing; if it was cancelled after its permits were granted but
//   before it ran, they go back to the semaphore (and on to the next waiter).
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/result.hpp>
#include <lanes/sync/closed.hpp>
#include <lanes/sync/detail/waiter_list.hpp>

namespace lanes {

class semaphore;

class semaphore_permit {
 public:
  semaphore_permit() noexcept = default;
  semaphore_permit(semaphore* s, std::size_t n, std::shared_ptr<semaphore> keep_alive = nullptr) noexcept
      : sem_(s), count_(n), keep_alive_(std::move(keep_alive)) {}
  semaphore_permit(semaphore_permit&& other) noexcept
      : sem_(std::exchange(other.sem_, nullptr)),
        count_(std::exchange(other.count_, 0)),
        keep_alive_(std::move(other.keep_alive_)) {}
  semaphore_permit& operator=(semaphore_permit&& other) noexcept {
    if (this != &other) {
      release();
      sem_ = std::exchange(other.sem_, nullptr);
      count_ = std::exchange(other.count_, 0);
      keep_alive_ = std::move(other.keep_alive_);
    }
    return *this;
  }
  semaphore_permit(const semaphore_permit&) = delete;
  semaphore_permit& operator=(const semaphore_permit&) = delete;
  ~semaphore_permit() { release(); }

  std::size_t count() const noexcept { return count_; }
  // Keeps the permits out of the semaphore for good.
  void forget() noexcept {
    sem_ = nullptr;
    count_ = 0;
    keep_alive_.reset();
  }
  inline void release() noexcept;

 private:
  semaphore* sem_ = nullptr;
  std::size_t count_ = 0;
  std::shared_ptr<semaphore> keep_alive_;
};

class semaphore {
 public:
  explicit semaphore(std::size_t permits) noexcept : available_(permits) {}
  semaphore(const semaphore&) = delete;
  semaphore& operator=(const semaphore&) = delete;

  std::size_t available() const {
    std::lock_guard lock(mutex_);
    return available_;
  }
  bool is_closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }

  // Permits now, without waiting, if no one is queued ahead; else nothing.
  std::optional<semaphore_permit> try_acquire(std::size_t n = 1) {
    std::lock_guard lock(mutex_);
    if (closed_ || !waiters_.empty() || available_ < n) return std::nullopt;
    available_ -= n;
    return semaphore_permit(this, n);
  }

  // Adds permits; wakes the waiters they satisfy, in order. More permits
  // than a size_t counts is a std::overflow_error, not a count wrapped
  // around to a handful.
  void release(std::size_t n) {
    if (!add(n, true)) {
      throw std::overflow_error("lanes::semaphore::release(" + std::to_string(n) +
                                "): the count would pass the most a semaphore holds, " + std::to_string(SIZE_MAX));
    }
  }

  // Wakes every waiter with `closed`; later acquires fail at once.
  void close() {
    std::vector<detail::waker> to_wake;
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      while (detail::waiter_node* node = waiters_.front()) {
        to_wake.push_back(waiters_.pop_front_notified());
        node->refused = true;  // woken, but with `closed`
      }
    }
    for (auto& w : to_wake) std::move(w).wake();
  }

  class acquire_awaiter {
   public:
    acquire_awaiter(semaphore& s, std::size_t n, std::shared_ptr<semaphore> keep_alive) noexcept
        : sem_(s), keep_alive_(std::move(keep_alive)) {
      node_.amount = n;
    }
    acquire_awaiter(acquire_awaiter&& other) noexcept  // before it waits only
        : sem_(other.sem_), keep_alive_(std::move(other.keep_alive_)) {
      node_.amount = other.node_.amount;
    }
    acquire_awaiter(const acquire_awaiter&) = delete;
    acquire_awaiter& operator=(const acquire_awaiter&) = delete;
    // Gives back whatever the task was granted and never received: permits
    // taken in await_suspend (a race then suspends and wakes itself, and an
    // abort before it runs again destroys this without await_resume), or
    // granted to it while it was queued.
    ~acquire_awaiter() {
      if (!waited_ && !granted_now_) return;
      std::vector<detail::waker> to_wake;
      {
        std::lock_guard lock(sem_.mutex_);
        if (node_.linked) {
          sem_.waiters_.remove(node_);  // cancelled while queued: those behind may go now
          sem_.grant_locked(to_wake);
        } else if ((granted_now_ || (node_.notified && !node_.refused)) && !taken_) {
          sem_.available_ += node_.amount;  // granted, then cancelled before it ran: give back
          sem_.grant_locked(to_wake);
        }
      }
      for (auto& w : to_wake) std::move(w).wake();
    }

    bool await_ready() {
      std::lock_guard lock(sem_.mutex_);
      if (sem_.closed_) return true;
      if (!sem_.waiters_.empty() || sem_.available_ < node_.amount) return false;
      sem_.available_ -= node_.amount;
      granted_now_ = true;
      return true;
    }
    bool await_suspend(std::coroutine_handle<> h) {
      auto& self = detail::require_current_task("co_await semaphore::acquire()");
      self.set_resume_point(h);
      node_.to_wake = self.make_waker();
      std::lock_guard lock(sem_.mutex_);
      if (sem_.closed_) {
        node_.to_wake = {};
        return false;
      }
      if (sem_.waiters_.empty() && sem_.available_ >= node_.amount) {
        sem_.available_ -= node_.amount;
        granted_now_ = true;
        node_.to_wake = {};
        return false;
      }
      sem_.waiters_.push_back(node_);
      waited_ = true;
      return true;
    }
    result<semaphore_permit, closed> await_resume() {
      std::lock_guard lock(sem_.mutex_);
      const bool granted = granted_now_ || (node_.notified && !node_.refused);
      if (!granted) return closed{};
      taken_ = true;
      return semaphore_permit(&sem_, node_.amount, std::move(keep_alive_));
    }

   private:
    semaphore& sem_;
    std::shared_ptr<semaphore> keep_alive_;
    detail::waiter_node node_;
    bool waited_ = false;       // was queued at some point
    bool granted_now_ = false;  // took permits without queueing
    bool taken_ = false;        // the permit was handed to the task
  };

  // co_await: a permit for `n`, or `closed`.
  acquire_awaiter acquire(std::size_t n = 1) noexcept { return acquire_awaiter(*this, n, nullptr); }
  // The same, and the permit keeps `self` alive.
  static acquire_awaiter acquire_owned(std::shared_ptr<semaphore> self, std::size_t n = 1) noexcept {
    semaphore& s = *self;
    return acquire_awaiter(s, n, std::move(self));
  }

 private:
  friend class semaphore_permit;

  // Past SIZE_MAX, all_or_nothing adds nothing and returns false (release
  // then throws); otherwise the count stops at SIZE_MAX. A permit gives
  // back what it took that second way: it can pass the top only if the
  // owner also released permits it never had, and a destructor must not
  // throw. Nothing here throws an error of its own.
  bool add(std::size_t n, bool all_or_nothing) {
    std::vector<detail::waker> to_wake;
    {
      std::lock_guard lock(mutex_);
      if (n > SIZE_MAX - available_) {
        if (all_or_nothing) return false;
        n = SIZE_MAX - available_;
      }
      available_ += n;
      grant_locked(to_wake);
    }
    for (auto& w : to_wake) std::move(w).wake();
    return true;
  }

  // Grants permits to waiters in order while the first one can be served.
  void grant_locked(std::vector<detail::waker>& to_wake) {
    while (detail::waiter_node* node = waiters_.front()) {
      if (node->amount > available_) break;
      available_ -= node->amount;
      to_wake.push_back(waiters_.pop_front_notified());
    }
  }

  mutable std::mutex mutex_;
  std::size_t available_;
  bool closed_ = false;
  detail::waiter_list waiters_;
};

inline void semaphore_permit::release() noexcept {
  if (sem_ != nullptr && count_ > 0) (void)sem_->add(count_, false);
  sem_ = nullptr;
  count_ = 0;
  keep_alive_.reset();
}

}  // namespace lanes
