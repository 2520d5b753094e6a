#include "io/stall_monitor.hpp"

#include <pthread.h>

#include <algorithm>
#include <cstdio>

#include "cycle_clock.hpp"

namespace lanes::detail {

stall_monitor::stall_monitor(std::chrono::nanoseconds threshold, stall_sink sink, std::vector<const poll_slot*> slots,
                             std::function<void()> nudge_timers)
    : threshold_(threshold),
      sink_(std::move(sink)),
      slots_(std::move(slots)),
      reported_(slots_.size(), 0),
      nudge_timers_(std::move(nudge_timers)) {
  thread_ = std::thread([this] { run(); });
  pthread_setname_np(thread_.native_handle(), "lanes-io-stall");
}

stall_monitor::~stall_monitor() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void stall_monitor::run() {
  // Look four times per threshold: a stall is reported within 1.25x of it.
  const auto period = std::max<std::chrono::nanoseconds>(threshold_ / 4, std::chrono::microseconds(250));
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
    lock.unlock();
    check(cycle_clock::now());
    lock.lock();
  }
}

void stall_monitor::check(std::uint64_t now_ticks) {
  const double ns_per_tick = cycle_clock::ns_per_tick();
  bool any_stalled = false;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const poll_slot& slot = *slots_[i];
    const auto started = slot.started_ticks.load(std::memory_order_acquire);
    if (started == 0 || now_ticks <= started) continue;
    const auto held =
        std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<double>(now_ticks - started) * ns_per_tick));
    if (held < threshold_) continue;
    any_stalled = true;
    if (reported_[i] == started) continue;  // this stall was reported already
    stall_report report;
    report.worker = static_cast<unsigned>(i);
    report.task_name = slot.name.load(std::memory_order_relaxed);
    report.spawned_at =
        source_location{slot.file.load(std::memory_order_relaxed), slot.function.load(std::memory_order_relaxed),
                        slot.line.load(std::memory_order_relaxed)};
    report.held_for = held;
    if (slot.started_ticks.load(std::memory_order_acquire) != started) continue;  // the poll ended: fields may be newer
    reported_[i] = started;
    stalls_.fetch_add(1, std::memory_order_relaxed);
    try {
      if (sink_) {
        sink_(report);
      } else {
        print_stall(report);
      }
    } catch (...) {
      std::fputs("lanes: the stall sink threw; the report is dropped\n", stderr);
    }
  }
  if (any_stalled) nudge_timers_();
}

void print_stall(const stall_report& report) {
  const auto ms = std::chrono::duration<double, std::milli>(report.held_for).count();
  std::fprintf(stderr,
               "lanes: stall: io worker %u has run task %s%s%s (spawned at %s:%u in %s) for %.1f ms without "
               "reaching a co_await; move blocking or CPU-heavy work off the io lane\n",
               report.worker, report.task_name ? "'" : "", report.task_name ? report.task_name : "(unnamed)",
               report.task_name ? "'" : "", report.spawned_at.file_name(), report.spawned_at.line(),
               report.spawned_at.function_name(), ms);
}

}  // namespace lanes::detail
