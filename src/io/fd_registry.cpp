// fd_registry: registered file descriptors, their readiness and their
// waiting tasks (see fd_registry.hpp).
#include "io/fd_registry.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/errors.hpp>

#include "io/uring.hpp"

namespace lanes::detail {

namespace {

constexpr std::uint32_t watched = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;

std::size_t index_of(std::uint64_t key) noexcept { return static_cast<std::size_t>((key >> 32) - 1); }

}  // namespace

fd_registry::slot* fd_registry::slot_at(std::size_t index) const noexcept {
  if (index / chunk_slots >= max_chunks) return nullptr;
  slot* chunk = chunks_[index / chunk_slots].load(std::memory_order_acquire);  // pairs with add's release
  return chunk != nullptr ? &chunk[index % chunk_slots] : nullptr;
}

fd_registry::slot* fd_registry::lock_current(std::uint64_t key, std::unique_lock<std::mutex>& lock) noexcept {
  if (key < key_base) return nullptr;
  slot* s = slot_at(index_of(key));
  if (s == nullptr) return nullptr;
  lock = std::unique_lock(s->mutex);
  if (s->fd < 0 || s->generation != static_cast<std::uint32_t>(key)) {
    lock.unlock();
    return nullptr;
  }
  return s;
}

fd_registry::fd_registry(int epoll_fd, bool verify_wakes, bool completions) noexcept
    : epoll_fd_(epoll_fd), verify_wakes_(verify_wakes), completions_(completions) {}

fd_registry::~fd_registry() = default;

void fd_registry::free_index(std::size_t index) {
  std::lock_guard lock(mutex_);
  free_.push_back(static_cast<std::uint32_t>(index));
}

fd_registration fd_registry::add(int fd) {
  std::uint32_t index = 0;
  slot* s = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (epoll_fd_.load(std::memory_order_relaxed) < 0)
      throw runtime_misuse("lanes::async_fd: its runtime has shut down");
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      if (slot_count_ == chunk_slots * max_chunks) {
        throw std::system_error(std::make_error_code(std::errc::too_many_files_open),
                                "lanes: registering a file descriptor (the table is full)");
      }
      index = static_cast<std::uint32_t>(slot_count_++);
      if (index % chunk_slots == 0) {
        owned_chunks_.push_back(std::make_unique<slot[]>(chunk_slots));
        chunks_[index / chunk_slots].store(owned_chunks_.back().get(), std::memory_order_release);
      }
    }
    s = slot_at(index);
  }
  std::unique_lock slot_lock(s->mutex);
  const std::uint64_t key = (std::uint64_t{index} + 1) << 32 | s->generation;
  epoll_event ev{};
  ev.events = watched;
  ev.data.u64 = key;
  if (::epoll_ctl(epoll_fd_.load(std::memory_order_relaxed), EPOLL_CTL_ADD, fd, &ev) < 0) {
    const int error = errno;
    slot_lock.unlock();
    {
      std::lock_guard lock(mutex_);
      free_.push_back(index);
    }
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
  s->fd = fd;
  s->readiness.reset();
  count_.fetch_add(1, std::memory_order_relaxed);
  return {this, key, &s->readiness, fd};
}

void fd_registry::remove(std::uint64_t key) noexcept {
  waker closed_under[2];  // woken after the lock
  bool retiring = false;
  {
    std::unique_lock<std::mutex> lock;
    slot* s = lock_current(key, lock);
    if (s == nullptr) return;
    const int epoll_fd = epoll_fd_.load(std::memory_order_relaxed);
    if (epoll_fd >= 0) ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, s->fd, nullptr);  // EBADF if the user closed it first: fine
    for (unsigned d = 0; d < 2; ++d) {
      if (s->removed[d] != nullptr) *s->removed[d] = true;
      closed_under[d] = take_waiter(*s, d);
    }
    s->fd = -1;
    // A ring operation still armed holds the slot until its last
    // completion (complete() frees it then): the key stays its user_data.
    retiring = s->ring_armed;
    if (retiring) {
      if (!s->ring_cancelling)
        ring_.load(std::memory_order_relaxed)
            ->cancel(key | (s->ring == ring_use::accept ? uring::accept_op : uring::receive_op));
    } else {
      release_inbox(*s);
      s->generation += 4;  // events still in flight for the old key are dropped
    }
  }
  if (!retiring) free_index(index_of(key));
  count_.fetch_sub(1, std::memory_order_relaxed);
  for (auto& w : closed_under) std::move(w).wake();
}

fd_arm_result fd_registry::arm(std::uint64_t key, unsigned direction, waker& w, bool* removed) {
  std::unique_lock<std::mutex> lock;
  slot* s = lock_current(key, lock);
  if (s == nullptr || epoll_fd_.load(std::memory_order_relaxed) < 0) return fd_arm_result::gone;
  if (fd_readiness::ready(s->readiness.load(direction))) return fd_arm_result::ready;
  s->waiting[direction].occupy(static_cast<waker&&>(w),
                               direction == read ? "lanes::async_fd::readable" : "lanes::async_fd::writable");
  s->removed[direction] = removed;
  return fd_arm_result::waiting;
}

void fd_registry::disarm(std::uint64_t key, unsigned direction, const task_header* task) noexcept {
  waker dropped;  // released after the lock
  std::unique_lock<std::mutex> lock;
  slot* s = lock_current(key, lock);
  if (s == nullptr || !s->waiting[direction].holds(task)) return;
  dropped = take_waiter(*s, direction);
}

void fd_registry::dispatch(std::uint64_t key, std::uint32_t events) noexcept {
  waker ready[2];
  {
    std::unique_lock<std::mutex> lock;
    slot* s = lock_current(key, lock);
    if (s == nullptr) return;  // deregistered since
    const bool failed = (events & (EPOLLERR | EPOLLHUP)) != 0;
    const bool read_closed = failed || (events & EPOLLRDHUP) != 0;
    // The bit is set under the slot's lock, which arm() holds while it
    // checks it: a waiter either sees the bit or is found here.
    auto report = [&](unsigned direction, bool closed) {
      // A waiter is woken only for what is really there (see the header).
      if (s->waiting[direction] && verify_wakes_ && !fd_ready_now(s->fd, direction)) return;
      s->readiness.set(direction, closed);
      ready[direction] = take_waiter(*s, direction);
    };
    // A reading side the ring drives learns of its end from the ring.
    if (s->ring == ring_use::none && (read_closed || (events & EPOLLIN) != 0)) report(read, read_closed);
    if (failed || (events & EPOLLOUT) != 0) report(write, failed);
  }
  for (auto& w : ready) std::move(w).wake();
}

void fd_registry::close() noexcept {
  std::vector<waker> dropped;  // released after the locks
  epoll_fd_.store(-1, std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < slot_count_; ++i) {
    slot* s = slot_at(i);
    std::lock_guard slot_lock(s->mutex);
    for (unsigned d = 0; d < 2; ++d) dropped.push_back(take_waiter(*s, d));
    release_inbox(*s);
    s->ring_armed = false;
    s->fd = -1;
    s->generation += 4;
  }
  count_.store(0, std::memory_order_relaxed);
  // Cancels what the ring still runs and waits for it (uring.hpp).
  ring_.store(nullptr, std::memory_order_relaxed);
  owned_ring_.reset();
}

}  // namespace lanes::detail
