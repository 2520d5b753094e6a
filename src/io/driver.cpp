#include "io/driver.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <system_error>

namespace lanes::detail {

namespace {

constexpr std::uint64_t event_tag = 1;
constexpr std::uint64_t timer_tag = 2;
constexpr std::uint64_t fd_key_base = std::uint64_t{1} << 32;  // fd keys: (index + 1) << 32 | generation

std::uint64_t key_of(std::uint32_t index, std::uint32_t generation) noexcept {
  return (std::uint64_t{index} + 1) << 32 | generation;
}

// The slot a key names, or nullptr if it has been deregistered since.
template <class Slots>
auto* slot_of(Slots& slots, std::uint64_t key) noexcept {
  const auto index = (key >> 32) - 1;
  using slot_t = typename Slots::value_type;
  if (index >= slots.size()) return static_cast<slot_t*>(nullptr);
  slot_t& slot = slots[index];
  return slot.fd >= 0 && slot.generation == static_cast<std::uint32_t>(key) ? &slot : static_cast<slot_t*>(nullptr);
}

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

std::uint64_t monotonic_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000U + static_cast<std::uint64_t>(ts.tv_nsec);
}

driver::driver() {
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
  } catch (...) {
    if (timer_fd_ >= 0) ::close(timer_fd_);
    if (event_fd_ >= 0) ::close(event_fd_);
    ::close(epoll_fd_);
    throw;
  }
}

driver::~driver() {
  ::close(timer_fd_);
  ::close(event_fd_);
  ::close(epoll_fd_);
}

void driver::park(std::uint64_t deadline_ns, bool block) {
  if (block && deadline_ns != armed_ns_) {
    itimerspec spec{};
    spec.it_value.tv_sec = static_cast<time_t>(deadline_ns / 1'000'000'000U);
    spec.it_value.tv_nsec = static_cast<long>(deadline_ns % 1'000'000'000U);
    // deadline 0 disarms; an absolute time in the past fires at once.
    checked(::timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr), "timerfd_settime");
    armed_ns_ = deadline_ns;
  }
  epoll_event events[8];
  int n = 0;
  do {
    n = ::epoll_wait(epoll_fd_, events, 8, block ? -1 : 0);
  } while (n < 0 && errno == EINTR);
  parked_deadline_.store(0, std::memory_order_release);
  for (int i = 0; i < n; ++i) {
    if (events[i].data.u64 == timer_tag) {
      drain(timer_fd_);
      armed_ns_ = 0;  // fired: disarmed
    }
    if (events[i].data.u64 >= fd_key_base) dispatch_fd_event(events[i].data.u64, events[i].events);
  }
}

// --- file descriptors ---------------------------------------------------------

std::uint64_t driver::fd_register(int fd) {
  std::lock_guard lock(fd_mutex_);
  std::uint32_t index = 0;
  if (!free_fds_.empty()) {
    index = free_fds_.back();
    free_fds_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(fds_.size());
    fds_.emplace_back();
  }
  fd_slot& slot = fds_[index];
  const std::uint64_t key = key_of(index, slot.generation);
  epoll_event ev{};
  ev.events = EPOLLONESHOT;  // armed per wait (fd_arm)
  ev.data.u64 = key;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) < 0) {
    const int error = errno;
    free_fds_.push_back(index);
    throw std::system_error(error, std::generic_category(), "lanes: registering a file descriptor (epoll_ctl)");
  }
  slot.fd = fd;
  fd_count_.fetch_add(1, std::memory_order_relaxed);
  return key;
}

void driver::fd_deregister(std::uint64_t key) noexcept {
  waker dropped[2];
  {
    std::lock_guard lock(fd_mutex_);
    fd_slot* slot = slot_of(fds_, key);
    if (slot == nullptr) return;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, slot->fd, nullptr);  // EBADF if the user closed it first: fine
    for (int d = 0; d < 2; ++d) dropped[d] = static_cast<waker&&>(slot->waiting[d]);
    slot->fd = -1;
    ++slot->generation;  // events still in flight for the old key are dropped
    free_fds_.push_back(static_cast<std::uint32_t>((key >> 32) - 1));
    fd_count_.fetch_sub(1, std::memory_order_relaxed);
  }
}

bool driver::fd_arm(std::uint64_t key, unsigned direction, waker& w) {
  std::lock_guard lock(fd_mutex_);
  fd_slot* slot = slot_of(fds_, key);
  if (slot == nullptr) return false;
  slot->waiting[direction] = static_cast<waker&&>(w);
  rearm_locked(key, *slot);
  return true;
}

void driver::fd_disarm(std::uint64_t key, unsigned direction) noexcept {
  waker dropped;
  std::lock_guard lock(fd_mutex_);
  if (fd_slot* slot = slot_of(fds_, key)) dropped = static_cast<waker&&>(slot->waiting[direction]);
}

void driver::rearm_locked(std::uint64_t key, fd_slot& slot) noexcept {
  epoll_event ev{};
  ev.events = EPOLLONESHOT;
  if (slot.waiting[fd_read]) ev.events |= EPOLLIN | EPOLLRDHUP;
  if (slot.waiting[fd_write]) ev.events |= EPOLLOUT;
  ev.data.u64 = key;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, slot.fd, &ev);
}

void driver::dispatch_fd_event(std::uint64_t key, std::uint32_t events) noexcept {
  waker ready[2];
  {
    std::lock_guard lock(fd_mutex_);
    fd_slot* slot = slot_of(fds_, key);
    if (slot == nullptr) return;  // deregistered since
    const bool failed = (events & (EPOLLERR | EPOLLHUP)) != 0;
    if (failed || (events & (EPOLLIN | EPOLLRDHUP)) != 0) ready[fd_read] = static_cast<waker&&>(slot->waiting[fd_read]);
    if (failed || (events & EPOLLOUT) != 0) ready[fd_write] = static_cast<waker&&>(slot->waiting[fd_write]);
    if (slot->waiting[fd_read] || slot->waiting[fd_write]) rearm_locked(key, *slot);  // one-shot: still wanted
  }
  for (auto& w : ready) std::move(w).wake();
}

void driver::unpark() noexcept {
  const std::uint64_t one = 1;
  if (::write(event_fd_, &one, sizeof one) < 0 && errno == EAGAIN) {
    drain(event_fd_);  // the count reached its maximum (never read: see the constructor)
    [[maybe_unused]] const auto n = ::write(event_fd_, &one, sizeof one);
  }
}

}  // namespace lanes::detail
