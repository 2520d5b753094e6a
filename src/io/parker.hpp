// parker: one worker's sleep token. unpark() sets it (and wakes the worker
// from the futex, or from the driver when it sleeps there); park consumes
// it. An unpark that comes before the park makes the park return at once.
//
// Sleeping in the driver: the worker announces `in_driver` (seq_cst), then
// checks the token; unpark sets the token (seq_cst), then checks
// `in_driver` and writes the driver's eventfd. Whichever runs second sees
// the other, and an eventfd write before epoll_wait still wakes it.
#pragma once

#include <atomic>
#include <cstdint>

namespace lanes::detail {

class parker {
 public:
  // Returns true when the token was set (and consumes it).
  bool try_consume() noexcept { return token_.exchange(empty, std::memory_order_acq_rel) == notified; }
  bool is_set() const noexcept { return token_.load(std::memory_order_seq_cst) == notified; }
  // The token says when the worker waits on the futex (`sleeping`), so that
  // set() makes a futex system call only then. libstdc++'s notify_one()
  // decides from a table of waiters shared by hashed addresses, and makes
  // the call on every unpark of a worker sleeping in the driver.
  void sleep_on_futex() noexcept {
    std::uint32_t s = empty;
    if (token_.compare_exchange_strong(s, sleeping, std::memory_order_acquire, std::memory_order_acquire)) {
      // wait() returns once the value is no longer `sleeping`: only set() changes it.
      do {
        token_.wait(sleeping, std::memory_order_acquire);
      } while (token_.load(std::memory_order_acquire) == sleeping);
    }
    token_.store(empty, std::memory_order_relaxed);  // consumed (only this worker writes `empty`)
  }
  // Sets the token; returns true when the worker may be sleeping in the driver.
  bool set() noexcept {
    if (token_.exchange(notified, std::memory_order_seq_cst) == sleeping) token_.notify_one();
    return in_driver_.load(std::memory_order_seq_cst);
  }
  void enter_driver() noexcept { in_driver_.store(true, std::memory_order_seq_cst); }
  void leave_driver() noexcept { in_driver_.store(false, std::memory_order_relaxed); }

 private:
  static constexpr std::uint32_t empty = 0;
  static constexpr std::uint32_t notified = 1;
  static constexpr std::uint32_t sleeping = 2;  // on the futex, inside sleep_on_futex()
  std::atomic<std::uint32_t> token_{empty};
  std::atomic<bool> in_driver_{false};
};

}  // namespace lanes::detail
