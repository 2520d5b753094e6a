// mutex: an async mutex for io tasks: `co_await m.lock()` waits without
// blocking the worker, first come first served, and returns a guard that
// unlocks when destroyed. Built on a one-permit semaphore, so a task
// cancelled while it waits for the lock leaves the queue cleanly.
//
// Hold it across co_awaits only when you must: a std::mutex is cheaper
// when the critical section does not suspend.
#pragma once

#include <optional>

#include <lanes/sync/semaphore.hpp>

namespace lanes {

class mutex_guard {
 public:
  explicit mutex_guard(semaphore_permit p) noexcept : permit_(std::move(p)) {}
  void unlock() noexcept { permit_.release(); }
  bool owns_lock() const noexcept { return permit_.count() > 0; }

 private:
  semaphore_permit permit_;
};

class mutex {
 public:
  mutex() = default;
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;

  class lock_awaiter {
   public:
    explicit lock_awaiter(semaphore& s) noexcept : inner_(s.acquire()) {}
    bool await_ready() { return inner_.await_ready(); }
    bool await_suspend(std::coroutine_handle<> h) { return inner_.await_suspend(h); }
    // A mutex is never closed: the permit is always granted.
    mutex_guard await_resume() { return mutex_guard(std::move(inner_.await_resume().value())); }

   private:
    semaphore::acquire_awaiter inner_;
  };

  lock_awaiter lock() noexcept { return lock_awaiter(sem_); }
  std::optional<mutex_guard> try_lock() {
    auto p = sem_.try_acquire();
    if (!p) return std::nullopt;
    return mutex_guard(std::move(*p));
  }

 private:
  semaphore sem_{1};
};

}  // namespace lanes
