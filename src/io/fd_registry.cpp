// fd_registry: registered file descriptors and their waiting tasks (see
// fd_registry.hpp).
#include "io/fd_registry.hpp"

#include <sys/epoll.h>

#include <cerrno>
#include <string>
#include <system_error>

#include <lanes/io/errors.hpp>

namespace lanes::detail {

fd_registry::slot* fd_registry::slot_of(std::uint64_t key) noexcept {
  const auto index = (key >> 32) - 1;
  if (index >= slots_.size()) return nullptr;
  slot& s = slots_[index];
  return s.fd >= 0 && s.generation == static_cast<std::uint32_t>(key) ? &s : nullptr;
}

std::uint64_t fd_registry::add(int fd) {
  std::lock_guard lock(mutex_);
  if (epoll_fd_ < 0) throw runtime_misuse("lanes::async_fd: its runtime has shut down");
  std::uint32_t index = 0;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  slot& s = slots_[index];
  const std::uint64_t key = (std::uint64_t{index} + 1) << 32 | s.generation;
  epoll_event ev{};
  ev.events = EPOLLONESHOT;  // armed per wait (arm)
  ev.data.u64 = key;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) < 0) {
    const int error = errno;
    free_.push_back(index);
    // The epoll set holds the descriptor already: another async_fd of this
    // runtime watches it, and the two would share one registration.
    if (error == EEXIST) {
      throw runtime_misuse("lanes::async_fd: fd " + std::to_string(fd) +
                           " already has an async_fd on this runtime: make one per descriptor and share it");
    }
    throw std::system_error(error, std::generic_category(),
                            error == EPERM
                                ? "lanes::async_fd: epoll cannot watch this fd (a regular file or directory?)"
                                : "lanes: registering a file descriptor (epoll_ctl)");
  }
  s.fd = fd;
  count_.fetch_add(1, std::memory_order_relaxed);
  return key;
}

void fd_registry::remove(std::uint64_t key) noexcept {
  waker closed_under[2];  // woken after the lock
  {
    std::lock_guard lock(mutex_);
    slot* s = slot_of(key);
    if (s == nullptr) return;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, s->fd, nullptr);  // EBADF if the user closed it first: fine
    for (unsigned d = 0; d < 2; ++d) {
      if (s->removed[d] != nullptr) *s->removed[d] = true;
      closed_under[d] = take_waiter(*s, d);
    }
    s->fd = -1;
    ++s->generation;  // events still in flight for the old key are dropped
    free_.push_back(static_cast<std::uint32_t>((key >> 32) - 1));
    count_.fetch_sub(1, std::memory_order_relaxed);
  }
  for (auto& w : closed_under) std::move(w).wake();
}

bool fd_registry::arm(std::uint64_t key, unsigned direction, waker& w, bool* removed) {
  std::lock_guard lock(mutex_);
  slot* s = slot_of(key);
  if (s == nullptr) return false;
  s->waiting[direction].occupy(static_cast<waker&&>(w),
                               direction == read ? "lanes::async_fd::readable" : "lanes::async_fd::writable");
  s->removed[direction] = removed;
  rearm_locked(key, *s);
  return true;
}

void fd_registry::disarm(std::uint64_t key, unsigned direction, const task_header* task) noexcept {
  waker dropped;  // released after the lock
  std::lock_guard lock(mutex_);
  slot* s = slot_of(key);
  if (s == nullptr || !s->waiting[direction].holds(task)) return;
  dropped = take_waiter(*s, direction);
}

void fd_registry::rearm_locked(std::uint64_t key, slot& s) noexcept {
  epoll_event ev{};
  ev.events = EPOLLONESHOT;
  if (s.waiting[read]) ev.events |= EPOLLIN | EPOLLRDHUP;
  if (s.waiting[write]) ev.events |= EPOLLOUT;
  ev.data.u64 = key;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, s.fd, &ev);
}

void fd_registry::dispatch(std::uint64_t key, std::uint32_t events) noexcept {
  waker ready[2];
  {
    std::lock_guard lock(mutex_);
    slot* s = slot_of(key);
    if (s == nullptr) return;  // deregistered since
    const bool failed = (events & (EPOLLERR | EPOLLHUP)) != 0;
    if (failed || (events & (EPOLLIN | EPOLLRDHUP)) != 0) ready[read] = take_waiter(*s, read);
    if (failed || (events & EPOLLOUT) != 0) ready[write] = take_waiter(*s, write);
    if (s->waiting[read] || s->waiting[write]) rearm_locked(key, *s);  // one-shot: still wanted
  }
  for (auto& w : ready) std::move(w).wake();
}

void fd_registry::close() noexcept {
  std::vector<slot> gone;  // their wakers are released after the lock
  std::lock_guard lock(mutex_);
  gone.swap(slots_);
  free_.clear();
  epoll_fd_ = -1;
  count_.store(0, std::memory_order_relaxed);
}

}  // namespace lanes::detail
