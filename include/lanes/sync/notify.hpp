// notify: wake one waiting task, or all of them, with no lost wake-ups.
//
//   lanes::notify ready;
//   co_await ready.notified();   // in one task
//   ready.notify_one();          // from any thread
//
// notify_one() with nobody waiting stores one permit: the next notified()
// completes at once (so a notification sent just before the waiter arrives
// is not lost). notify_all() wakes every task waiting at that moment and
// stores nothing. Waiters are woken first come, first served.
//
// Cancellation: a waiting task that is cancelled leaves the queue. If it
// was cancelled after notify_one() picked it but before it ran, the
// notification is passed on to the next waiter (or stored as the permit),
// so cancelling a waiter never swallows a notify_one().
#pragma once

#include <coroutine>
#include <mutex>
#include <vector>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/sync/detail/waiter_list.hpp>

namespace lanes {

class notify {
 public:
  notify() = default;
  notify(const notify&) = delete;
  notify& operator=(const notify&) = delete;

  void notify_one() {
    detail::waker to_wake;
    {
      std::lock_guard lock(mutex_);
      if (waiters_.empty()) {
        permit_ = true;
        return;
      }
      to_wake = waiters_.pop_front_notified();
    }
    std::move(to_wake).wake();
  }

  void notify_all() {
    std::vector<detail::waker> to_wake;
    {
      std::lock_guard lock(mutex_);
      while (!waiters_.empty()) to_wake.push_back(waiters_.pop_front_notified(true));
    }
    for (auto& w : to_wake) std::move(w).wake();
  }

  class awaiter {
   public:
    explicit awaiter(notify& n) noexcept : owner_(n) {}
    awaiter(awaiter&& other) noexcept : owner_(other.owner_) {}  // before it waits only
    awaiter(const awaiter&) = delete;
    awaiter& operator=(const awaiter&) = delete;
    ~awaiter() {
      std::unique_lock lock(owner_.mutex_);
      if (node_.linked) {
        owner_.waiters_.remove(node_);  // cancelled while waiting
        return;
      }
      if (((node_.notified && !node_.broadcast) || took_permit_) && !resumed_) {
        // Picked by notify_one, or took the stored permit in await_suspend,
        // but cancelled before it ran: pass it on.
        lock.unlock();
        owner_.notify_one();
      }
    }
    bool await_ready() {
      std::lock_guard lock(owner_.mutex_);
      if (!owner_.permit_) return false;
      owner_.permit_ = false;
      took_permit_ = true;  // await_resume follows at once
      return true;
    }
    bool await_suspend(std::coroutine_handle<> h) {
      auto& self = detail::require_current_task("co_await notify::notified()");
      self.set_resume_point(h);
      node_.to_wake = self.make_waker();
      std::lock_guard lock(owner_.mutex_);
      if (owner_.permit_) {
        // Taken now, the task's only at await_resume: a race this is a branch
        // of may still be destroyed before that (see the destructor).
        owner_.permit_ = false;
        took_permit_ = true;
        node_.to_wake = {};
        return false;
      }
      owner_.waiters_.push_back(node_);
      return true;
    }
    void await_resume() noexcept { resumed_ = true; }

   private:
    notify& owner_;
    detail::waiter_node node_;
    bool took_permit_ = false;  // consumed the stored notify_one() permit
    bool resumed_ = false;      // await_resume ran: the notification is the task's
  };

  // Completes at the next notify_one() / notify_all() (or at once if a
  // notify_one() permit is stored).
  awaiter notified() noexcept { return awaiter(*this); }

 private:
  std::mutex mutex_;
  detail::waiter_list waiters_;
  bool permit_ = false;
};

}  // namespace lanes
