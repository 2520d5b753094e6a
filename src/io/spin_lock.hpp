// spin_lock: for critical sections of a few instructions (linking a task
// into the live list), where a futex-backed mutex costs more than the work.
// Test-and-test-and-set with the CPU's spin hint; yields the thread after a
// while so that a preempted holder can run.
#pragma once

#include <atomic>
#include <thread>

#include <lanes/detail/cpu_relax.hpp>

namespace lanes::detail {

class spin_lock {
 public:
  void lock() noexcept {
    for (int spins = 0;; ++spins) {
      if (!locked_.exchange(true, std::memory_order_acquire)) return;
      while (locked_.load(std::memory_order_relaxed)) {
        if (++spins > 64) {
          std::this_thread::yield();
          spins = 0;
        } else {
          cpu_relax();
        }
      }
    }
  }
  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace lanes::detail
