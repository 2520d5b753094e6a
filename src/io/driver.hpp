// driver: where an idle worker sleeps so that timers and sockets can wake
// it. One epoll instance watches a timerfd armed for the next timer
// deadline (hrtimer precision, well under the 100 us goal), an eventfd
// that other threads write to wake the sleeper, and the registered file
// descriptors (async_fd, the lanes::net sockets: fd_registry.hpp).
//
// At most one worker sleeps in the driver at a time (try_lock on `lock_`);
// it holds the lock only while parked or while polling without blocking, so
// a worker that is running a task never holds the driver: a stuck task
// cannot keep timers or sockets from being serviced by the other workers.
//
// One driver per runtime, shared by its workers (Tokio's choice), not one
// per worker (Seastar's, Monoio's): a task moves between workers when it
// is stolen, and a shared driver lets any idle worker service any socket,
// where per-worker drivers would tie each socket to the worker that
// registered it, and a busy worker would leave its sockets unserviced
// while the others sleep. The registrations (fd_registry) belong to the
// driver, not to the runtime, so a thread-per-core runtime (shards) can
// give each core a driver of its own, each with its own table. On the
// io_uring backend the ring belongs to the registry, so the same holds:
// one ring per driver, shared by the runtime's workers (any of them
// submits; the driver's holder reaps), and a driver per core would bring
// a ring per core.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "cycle_clock.hpp"  // monotonic_ns
#include "io/fd_registry.hpp"

namespace lanes::detail {

class driver {
 public:
  // `verify_wakes`: more than one thread runs the runtime's tasks
  // (fd_registry.hpp); `completions`: the io backend is io_uring
  // (io_backend.hpp): the registry opens a ring at its first socket, and
  // park() hands the ring's completions to it.
  driver(bool verify_wakes, bool completions);
  ~driver();
  driver(const driver&) = delete;
  driver& operator=(const driver&) = delete;

  std::mutex& lock() noexcept { return lock_; }
  bool uses_uring() const noexcept { return uses_uring_; }
  // Caller holds lock(). Sleeps until `deadline_ns` (CLOCK_MONOTONIC, 0 = no
  // deadline) or until unpark(); `block` false polls without sleeping.
  // Takes at most `max_events` events (at most max_events_per_park): what
  // it leaves stays ready in epoll for the next call.
  static constexpr int max_events_per_park = 64;
  void park(std::uint64_t deadline_ns, bool block, int max_events = max_events_per_park);
  // Any thread: wakes the parked worker, or makes its next park return at once.
  void unpark() noexcept;
  // The deadline the parked worker will sleep until (0: nobody parked). The
  // scheduler announces it under the timer lock before parking, so a timer
  // registered with an earlier deadline sees it and unparks the driver.
  std::uint64_t parked_deadline() const noexcept { return parked_deadline_.load(std::memory_order_acquire); }
  void announce_parked_deadline(std::uint64_t deadline_ns) noexcept {
    parked_deadline_.store(deadline_ns, std::memory_order_release);
  }

  // The file descriptors registered with this epoll instance (async_fd),
  // shared with each registration: io/fd_registry.hpp.
  const std::shared_ptr<fd_registry>& fds() const noexcept { return fds_; }
  std::size_t fd_count() const noexcept { return fds_->count(); }

 private:
  std::mutex lock_;
  const bool uses_uring_;
  int epoll_fd_ = -1;
  int event_fd_ = -1;
  int timer_fd_ = -1;
  std::uint64_t armed_ns_ = 0;  // what timer_fd_ is armed for (under lock_)
  std::atomic<std::uint64_t> parked_deadline_{0};
  std::shared_ptr<fd_registry> fds_;
};

}  // namespace lanes::detail
