// stall_monitor: a thread that notices an io worker which has not returned
// to its scheduler for longer than a threshold (a task that blocks or spins
// between two co_awaits) and reports it once per stall, naming the task.
//
// The worker publishes what it runs in per-worker atomics (poll_slot):
// name and spawn site first (relaxed), then the start time (release); it
// clears the start time when the poll ends. The monitor reads the start
// time (acquire), the fields, then the start time again: if it changed,
// the poll ended meanwhile and the fields may belong to another task, so it
// looks again next round. The strings are literals or __builtin_FILE, so a
// pointer read from a finished poll is still valid memory.
//
// It also keeps timers alive when a worker is stuck: if timers are overdue,
// nobody sleeps in the driver and workers sleep on their futex, it wakes
// one of them (which then takes the driver).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <lanes/io/stall.hpp>

namespace lanes::detail {

struct poll_slot {
  std::atomic<std::uint64_t> started_ticks{0};  // cycle_clock ticks; 0 while not polling
  std::atomic<const char*> name{nullptr};
  std::atomic<const char*> file{nullptr};
  std::atomic<const char*> function{nullptr};
  std::atomic<std::uint32_t> line{0};
};

class stall_monitor {
 public:
  stall_monitor(std::chrono::nanoseconds threshold, stall_sink sink, std::vector<const poll_slot*> slots,
                std::function<void()> nudge_timers);
  ~stall_monitor();
  stall_monitor(const stall_monitor&) = delete;
  stall_monitor& operator=(const stall_monitor&) = delete;

  std::uint64_t stalls() const noexcept { return stalls_.load(std::memory_order_relaxed); }

 private:
  void run();
  void check(std::uint64_t now_ticks);

  const std::chrono::nanoseconds threshold_;
  stall_sink sink_;
  std::vector<const poll_slot*> slots_;
  std::vector<std::uint64_t> reported_;  // per worker: the start time of the poll last reported
  std::function<void()> nudge_timers_;
  std::atomic<std::uint64_t> stalls_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

void print_stall(const stall_report& report);

}  // namespace lanes::detail
