// The bare timerfd ticker under CPU load (timer_floor.hpp).
#include "timer_floor.hpp"

#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <system_error>
#include <utility>
#include <vector>

namespace lanes::bench {

namespace {

std::uint64_t monotonic_ns() noexcept {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000U + static_cast<std::uint64_t>(t.tv_nsec);
}

int checked(int rc, const char* what) {
  if (rc < 0) throw std::system_error(errno, std::generic_category(), what);
  return rc;
}

// A timerfd watched by an epoll instance; closes both.
class epoll_timer {
 public:
  epoll_timer()
      : timer_(checked(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC), "timerfd_create")),
        epoll_(checked(epoll_create1(EPOLL_CLOEXEC), "epoll_create1")) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    checked(epoll_ctl(epoll_, EPOLL_CTL_ADD, timer_, &ev), "epoll_ctl");
  }
  epoll_timer(const epoll_timer&) = delete;
  epoll_timer& operator=(const epoll_timer&) = delete;
  ~epoll_timer() {
    close(epoll_);
    close(timer_);
  }
  void sleep_until(std::uint64_t deadline_ns) {
    itimerspec spec{};
    spec.it_value.tv_sec = static_cast<time_t>(deadline_ns / 1'000'000'000U);
    spec.it_value.tv_nsec = static_cast<long>(deadline_ns % 1'000'000'000U);
    checked(timerfd_settime(timer_, TFD_TIMER_ABSTIME, &spec, nullptr), "timerfd_settime");
    epoll_event ev{};
    while (epoll_wait(epoll_, &ev, 1, -1) < 0 && errno == EINTR) {
    }
    std::uint64_t expirations = 0;
    (void)read(timer_, &expirations, sizeof expirations);
  }

 private:
  int timer_;
  int epoll_;
};

}  // namespace

lag_stats timer_floor(std::chrono::microseconds period, std::chrono::milliseconds duration, std::size_t busy,
                      compute::thread_priority priority) {
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> burning{0};
  auto pool = compute::pool::builder().threads(busy).priority(priority).build();
  struct stop_on_exit {  // before the pool's destructor, which waits for the spinning jobs
    std::atomic<bool>& stop;
    ~stop_on_exit() { stop.store(true); }
  } stopper{stop};
  for (std::size_t i = 0; i < busy; ++i) {
    pool.spawn([&] {
      burning.fetch_add(1);
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  }
  while (burning.load() < busy) {
  }
  epoll_timer timer;
  std::vector<double> lags;
  const auto step = static_cast<std::uint64_t>(std::chrono::nanoseconds(period).count());
  const std::uint64_t end = monotonic_ns() + static_cast<std::uint64_t>(std::chrono::nanoseconds(duration).count());
  for (std::uint64_t next = monotonic_ns() + step; next <= end; next += step) {
    timer.sleep_until(next);
    lags.push_back(static_cast<double>(monotonic_ns() - next) / 1000.0);
  }
  return summarize_lags(std::move(lags));
}

}  // namespace lanes::bench
