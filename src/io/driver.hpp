// driver: where an idle worker sleeps so that timers (and, later, sockets)
// can wake it. One epoll instance watches a timerfd armed for the next
// timer deadline (hrtimer precision, well under the 100 us goal) and an
// eventfd that other threads write to wake the sleeper. Sockets will
// register with the same epoll instance.
//
// At most one worker sleeps in the driver at a time (try_lock on `lock_`);
// it holds the lock only while parked or while polling without blocking, so
// a worker that is running a task never holds the driver: a stuck task
// cannot keep timers or sockets from being serviced by the other workers.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include <lanes/io/detail/task_header.hpp>

namespace lanes::detail {

class driver {
 public:
  driver();
  ~driver();
  driver(const driver&) = delete;
  driver& operator=(const driver&) = delete;

  std::mutex& lock() noexcept { return lock_; }
  // Caller holds lock(). Sleeps until `deadline_ns` (CLOCK_MONOTONIC, 0 = no
  // deadline) or until unpark(); `block` false polls without sleeping.
  void park(std::uint64_t deadline_ns, bool block);
  // Any thread: wakes the parked worker, or makes its next park return at once.
  void unpark() noexcept;
  // The deadline the parked worker will sleep until (0: nobody parked). The
  // scheduler announces it under the timer lock before parking, so a timer
  // registered with an earlier deadline sees it and unparks the driver.
  std::uint64_t parked_deadline() const noexcept { return parked_deadline_.load(std::memory_order_acquire); }
  void announce_parked_deadline(std::uint64_t deadline_ns) noexcept {
    parked_deadline_.store(deadline_ns, std::memory_order_release);
  }

  // --- file descriptors (io/detail/fd_readiness.hpp) ---
  // A registration is a slot in fds_; its key (what epoll hands back) is
  // (index + 1) << 32 | generation, so an event for a slot that has been
  // deregistered (and maybe reused) since is recognised and dropped. Slots
  // and their wakers are guarded by fd_mutex_; wakers are woken after it
  // is released.
  std::uint64_t fd_register(int fd);
  void fd_deregister(std::uint64_t key) noexcept;
  // Arms a one-shot wait for `direction` (fd_read or fd_write): `w` is woken
  // when the fd is ready for it, has hung up or failed. false: stale key.
  bool fd_arm(std::uint64_t key, unsigned direction, waker& w);
  void fd_disarm(std::uint64_t key, unsigned direction) noexcept;
  std::size_t fd_count() const noexcept { return fd_count_.load(std::memory_order_relaxed); }
  static constexpr unsigned fd_read = 0;
  static constexpr unsigned fd_write = 1;

 private:
  std::mutex lock_;
  int epoll_fd_ = -1;
  int event_fd_ = -1;
  int timer_fd_ = -1;
  std::uint64_t armed_ns_ = 0;  // what timer_fd_ is armed for (under lock_)
  std::atomic<std::uint64_t> parked_deadline_{0};

  struct fd_slot {
    int fd = -1;
    std::uint32_t generation = 0;
    waker waiting[2];  // reader, writer
  };
  void dispatch_fd_event(std::uint64_t key, std::uint32_t events) noexcept;
  // Re-arms the slot's one-shot registration for the directions still waited on.
  void rearm_locked(std::uint64_t key, fd_slot& slot) noexcept;
  std::mutex fd_mutex_;
  std::vector<fd_slot> fds_;
  std::vector<std::uint32_t> free_fds_;
  std::atomic<std::size_t> fd_count_{0};
};

// Nanoseconds on CLOCK_MONOTONIC, the clock of std::chrono::steady_clock on Linux.
std::uint64_t monotonic_ns() noexcept;

}  // namespace lanes::detail
