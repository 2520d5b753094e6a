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
  bool try_consume() noexcept { return token_.exchange(0, std::memory_order_acq_rel) != 0; }
  bool is_set() const noexcept { return token_.load(std::memory_order_seq_cst) != 0; }
  void sleep_on_futex() noexcept {
    while (token_.load(std::memory_order_acquire) == 0) token_.wait(0, std::memory_order_acquire);
    token_.store(0, std::memory_order_relaxed);
  }
  // Sets the token; returns true when the worker may be sleeping in the driver.
  bool set() noexcept {
    if (token_.exchange(1, std::memory_order_seq_cst) == 0) token_.notify_one();
    return in_driver_.load(std::memory_order_seq_cst);
  }
  void enter_driver() noexcept { in_driver_.store(true, std::memory_order_seq_cst); }
  void leave_driver() noexcept { in_driver_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<std::uint32_t> token_{0};
  std::atomic<bool> in_driver_{false};
};

}  // namespace lanes::detail
