#include "io/driver.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <system_error>

namespace lanes::detail {

namespace {

constexpr std::uint64_t event_tag = 1;
constexpr std::uint64_t timer_tag = 2;

int checked(int result, const char* call) {
  if (result < 0) throw std::system_error(errno, std::generic_category(), call);
  return result;
}

void watch(int epoll_fd, int fd, std::uint64_t tag, std::uint32_t extra_events = 0) {
  epoll_event ev{};
  ev.events = EPOLLIN | extra_events;
  ev.data.u64 = tag;
  checked(::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev), "epoll_ctl");
}

void drain(int fd) noexcept {
  std::uint64_t value = 0;
  [[maybe_unused]] const auto n = ::read(fd, &value, sizeof value);
}

}  // namespace

driver::driver(bool verify_wakes, bool completions) : uses_uring_(completions) {
  epoll_fd_ = checked(::epoll_create1(EPOLL_CLOEXEC), "epoll_create1");
  try {
    event_fd_ = checked(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), "eventfd");
    timer_fd_ = checked(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC), "timerfd_create");
    // Edge-triggered: every write to the eventfd is an edge (the kernel
    // wakes epoll on each write, whatever the count), so the woken worker
    // never reads it - one system call fewer on the wake-up path, and the
    // one a woken worker made before it could run anything. The count only
    // grows; unpark() resets it in the 2^64 case.
    watch(epoll_fd_, event_fd_, event_tag, EPOLLET);
    watch(epoll_fd_, timer_fd_, timer_tag);
    fds_ = std::make_shared<fd_registry>(epoll_fd_, verify_wakes, completions);
  } catch (...) {
    if (timer_fd_ >= 0) ::close(timer_fd_);
    if (event_fd_ >= 0) ::close(event_fd_);
    ::close(epoll_fd_);
    throw;
  }
}

driver::~driver() {
  fds_->close();  // before the epoll fd goes: an async_fd left behind must not touch it
  ::close(timer_fd_);
  ::close(event_fd_);
  ::close(epoll_fd_);
}

void driver::park(std::uint64_t deadline_ns, bool block, int max_events) {
  if (block && deadline_ns != armed_ns_) {
    itimerspec spec{};
    spec.it_value.tv_sec = static_cast<time_t>(deadline_ns / 1'000'000'000U);
    spec.it_value.tv_nsec = static_cast<long>(deadline_ns % 1'000'000'000U);
    // deadline 0 disarms; an absolute time in the past fires at once.
    checked(::timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr), "timerfd_settime");
    armed_ns_ = deadline_ns;
  }
  epoll_event events[max_events_per_park];
  int n = 0;
  do {
    n = ::epoll_wait(epoll_fd_, events, std::clamp(max_events, 1, max_events_per_park), block ? -1 : 0);
  } while (n < 0 && errno == EINTR);
  parked_deadline_.store(0, std::memory_order_release);
  for (int i = 0; i < n; ++i) {
    if (events[i].data.u64 == timer_tag) {
      drain(timer_fd_);
      armed_ns_ = 0;  // fired: disarmed
    }
    if (events[i].data.u64 >= fd_registry::key_base) fds_->dispatch(events[i].data.u64, events[i].events);
  }
  // The ring's completions (io_uring backend), whether or not its
  // descriptor was among the events: looking costs a load.
  fds_->reap();
}

void driver::unpark() noexcept {
  const std::uint64_t one = 1;
  if (::write(event_fd_, &one, sizeof one) < 0 && errno == EAGAIN) {
    drain(event_fd_);  // the count reached its maximum (never read: see the constructor)
    [[maybe_unused]] const auto n = ::write(event_fd_, &one, sizeof one);
  }
}

}  // namespace lanes::detail
