// thread_parker: how a thread sleeps until a ring's other side (or stop())
// wakes it - a futex word behind std::atomic::wait.
//
// The sleeper reads the epoch, arms its wait slots with wake_target(), re-
// checks its rings, then park(seen): it returns at once if any wake-up
// bumped the epoch since `seen`, so a wake-up that lands between the
// re-check and the futex call is not lost. unpark() bumps the epoch and
// makes the futex call only when a sleeper may be in it.
#pragma once

#include <atomic>
#include <cstdint>

#include <lanes/react/detail/wait_slot.hpp>

namespace lanes::react::detail {

class thread_parker {
 public:
  std::uint32_t epoch() const noexcept { return epoch_.load(std::memory_order_acquire); }

  void park(std::uint32_t seen) noexcept {
    sleeping_.store(true, lanes::detail::dekker_store);
    lanes::detail::dekker_fence();
    epoch_.wait(seen, lanes::detail::dekker_load);
    sleeping_.store(false, std::memory_order_relaxed);
  }

  void unpark() noexcept {
    epoch_.fetch_add(1, lanes::detail::dekker_store);
    lanes::detail::dekker_fence();
    if (sleeping_.load(lanes::detail::dekker_load)) epoch_.notify_one();
  }

  wake_target target() noexcept {
    return {[](void* self) noexcept { static_cast<thread_parker*>(self)->unpark(); }, this};
  }

 private:
  std::atomic<std::uint32_t> epoch_{0};
  std::atomic<bool> sleeping_{false};
};

}  // namespace lanes::react::detail
