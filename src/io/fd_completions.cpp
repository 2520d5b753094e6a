// fd_registry's completions (fd_registry.hpp, "Completions"): the reading
// side of a socket driven by the io_uring backend's multishot receive or
// accept, the inbox its completions fill, and the reads that take from it.
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include <lanes/io/detail/runtime_access.hpp>

#include "io/fd_registry.hpp"
#include "io/uring.hpp"

namespace lanes::detail {

namespace {

std::size_t index_of(std::uint64_t key) noexcept { return static_cast<std::size_t>((key >> 32) - 1); }
std::uint64_t key_of(std::uint64_t user_data) noexcept { return user_data & ~uring::op_mask; }

}  // namespace

uring* fd_registry::ring() noexcept {
  if (uring* r = ring_.load(std::memory_order_acquire)) return r;
  std::lock_guard lock(mutex_);
  if (owned_ring_ || ring_failed_ || epoll_fd_.load(std::memory_order_relaxed) < 0) {
    return ring_.load(std::memory_order_relaxed);
  }
  std::string why_not;
  std::unique_ptr<uring> opened;
  try {
    opened = uring::open(why_not);
  } catch (const std::bad_alloc&) {
    why_not = "out of memory for the ring's buffers";
  }
  if (opened) {
    // The driver's epoll set watches the ring: a completion waiting wakes a parked driver.
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = ring_key;
    if (::epoll_ctl(epoll_fd_.load(std::memory_order_relaxed), EPOLL_CTL_ADD, opened->fd(), &ev) < 0) {
      why_not = std::string("epoll_ctl (the ring's descriptor): ") + std::strerror(errno);
      opened.reset();
    }
  }
  if (!opened) {
    // The backend was chosen with a probe (io_backend.hpp); this runtime's
    // own ring failing after it is rare enough to say once, on stderr.
    ring_failed_ = true;
    std::fprintf(stderr, "lanes: io_uring ring not opened (%s): this runtime's sockets use epoll\n", why_not.c_str());
    return nullptr;
  }
  owned_ring_ = std::move(opened);
  ring_.store(owned_ring_.get(), std::memory_order_release);
  return owned_ring_.get();
}

bool fd_registry::use_ring(std::uint64_t key, bool accepting) noexcept {
  if (!completions_) return false;
  uring* r = ring();
  if (r == nullptr) return false;
  std::unique_lock<std::mutex> lock;
  slot* s = lock_current(key, lock);
  if (s == nullptr) return false;
  // epoll keeps the writing side (and hang-ups, errors); reading is the ring's.
  epoll_event ev{};
  ev.events = accepting ? EPOLLET : (EPOLLOUT | EPOLLET);
  ev.data.u64 = key;
  if (::epoll_ctl(epoll_fd_.load(std::memory_order_relaxed), EPOLL_CTL_MOD, s->fd, &ev) < 0) return false;
  s->ring = accepting ? ring_use::accept : ring_use::receive;
  s->readiness.set_from_ring(true);
  return true;
}

bool fd_registry::arm_ring(slot& s, std::uint64_t key) noexcept {
  uring* r = ring_.load(std::memory_order_relaxed);
  if (s.ring == ring_use::accept ? r->accept(s.fd, key) : r->receive(s.fd, key)) {
    s.ring_armed = true;
    s.ring_cancelling = false;
    return true;
  }
  read_through_epoll(s, key);  // the submission queue stayed full
  return false;
}

void fd_registry::read_through_epoll(slot& s, std::uint64_t key) noexcept {
  // From now on this socket reads as on the epoll backend; epoll reports
  // an edge at once if data waits, which wakes a reader that waits.
  s.ring = ring_use::none;
  s.readiness.set_from_ring(false);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.u64 = key;
  ::epoll_ctl(epoll_fd_.load(std::memory_order_relaxed), EPOLL_CTL_MOD, s.fd, &ev);
}

void fd_registry::release_inbox(slot& s) noexcept {
  uring* r = ring_.load(std::memory_order_relaxed);
  for (; !s.inbox.empty(); s.inbox.pop()) {
    if (s.ring == ring_use::accept) {
      ::close(static_cast<int>(s.inbox.front().value));
    } else if (r != nullptr) {
      r->recycle(s.inbox.front().value);
    }
  }
  s.ring = ring_use::none;
  s.ring_cancelling = false;
  s.ring_dry = false;
  s.ring_ended = false;
  s.ring_error = 0;
}

ssize_t fd_registry::ring_receive(std::uint64_t key, std::span<std::byte> into, bool& drained) noexcept {
  drained = false;
  std::unique_lock<std::mutex> lock;
  slot* s = lock_current(key, lock);
  if (s == nullptr) {
    errno = EBADF;
    return -1;
  }
  if (!s->inbox.empty()) {
    uring* r = ring_.load(std::memory_order_relaxed);
    std::size_t copied = 0;
    while (copied < into.size() && !s->inbox.empty()) {
      inbox_entry& e = s->inbox.front();
      const std::size_t n = std::min<std::size_t>(into.size() - copied, e.length - e.offset);
      std::memcpy(into.data() + copied, r->buffer(e.value).data() + e.offset, n);
      copied += n;
      e.offset += static_cast<std::uint32_t>(n);
      if (e.offset == e.length) {
        r->recycle(e.value);
        s->inbox.pop();
      }
    }
    if (s->inbox.empty()) {
      // Empty with the operation armed: the next read waits for a
      // completion. Not armed: the next read asks the socket (direct), or
      // after the buffer ring ran dry on it, reads through epoll.
      drained = s->ring_armed;
      if (!s->ring_armed && s->ring_dry) read_through_epoll(*s, key);
    }
    return static_cast<ssize_t>(copied);
  }
  if (s->ring_ended) {
    if (s->ring_error == 0) return 0;
    errno = s->ring_error;
    return -1;
  }
  if (s->ring_armed) {
    errno = EAGAIN;
    return -1;
  }
  // Not armed: the kernel's buffer holds what came. A read that drains it
  // arms the multishot receive, which takes what comes next.
  const ssize_t n = ::recv(s->fd, into.data(), into.size(), 0);
  if ((n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) || (n > 0 && static_cast<std::size_t>(n) < into.size())) {
    const int error = errno;
    drained = arm_ring(*s, key);
    errno = error;
  }
  return n;
}

ssize_t fd_registry::ring_accept(std::uint64_t key) noexcept {
  std::unique_lock<std::mutex> lock;
  slot* s = lock_current(key, lock);
  if (s == nullptr) {
    errno = EBADF;
    return -1;
  }
  if (!s->inbox.empty()) {
    const int fd = static_cast<int>(s->inbox.front().value);
    s->inbox.pop();
    return fd;
  }
  if (s->ring_armed) {
    errno = EAGAIN;
    return -1;
  }
  const int fd = ::accept4(s->fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    arm_ring(*s, key);
    errno = EAGAIN;
  }
  return fd;
}

bool fd_registry::ring_ready(std::uint64_t key) noexcept {
  std::unique_lock<std::mutex> lock;
  slot* s = lock_current(key, lock);
  if (s == nullptr) return true;  // the read says EBADF
  if (!s->inbox.empty() || s->ring_ended) return true;
  if (!s->ring_armed) {
    if (fd_ready_now(s->fd, read)) return true;
    if (!arm_ring(*s, key)) return fd_ready_now(s->fd, read);  // epoll reads from now on
  }
  // Armed, nothing in: the bit is stale. Only completions set it, under
  // this lock, so the clear cannot undo one.
  for (;;) {
    const auto seen = s->readiness.load(read);
    if (s->readiness.clear(read, seen)) return false;
  }
}

void fd_registry::reap() noexcept {
  uring* r = ring_.load(std::memory_order_acquire);
  if (r == nullptr) return;
  r->reap([this](std::uint64_t user_data, int result, unsigned flags) { complete(user_data, result, flags); });
}

void fd_registry::run_ring_work() noexcept {
  if (uring* r = ring_.load(std::memory_order_acquire)) r->run_own_work();
}

bool fd_registry::ended_empty(slot& s, std::uint64_t key) noexcept {
  if (fd_ready_now(s.fd, read)) return true;  // the reader's direct call takes it
  if (!arm_ring(s, key)) return fd_ready_now(s.fd, read);
  return false;
}

void fd_registry::complete(std::uint64_t user_data, int result, unsigned flags) noexcept {
  const std::uint64_t op = user_data & uring::op_mask;
  if (op == 0) return;  // a cancel's own completion
  const bool more = uring::more(flags);
  const int buffer = uring::buffer_of(flags);
  uring* r = ring_.load(std::memory_order_relaxed);
  const std::uint64_t key = key_of(user_data);
  // What the completion carries when nobody can take it.
  auto discard = [&] {
    if (buffer >= 0) r->recycle(static_cast<unsigned>(buffer));
    if (op == uring::accept_op && result >= 0) ::close(result);
  };
  slot* s = slot_at(index_of(key));
  waker reader;  // woken after the lock
  bool retired = false;
  {
    if (s == nullptr) return discard();
    std::lock_guard lock(s->mutex);
    // A slot waits for its operation's last completion before it is
    // reused (remove), so the generation matches while it runs.
    if (s->generation != static_cast<std::uint32_t>(key)) return discard();
    if (!more) s->ring_armed = false;
    if (s->fd < 0) {  // retiring
      discard();
      if (!more) {
        release_inbox(*s);
        s->generation += 4;
        retired = true;
      }
    } else {
      bool arrived = false;
      bool closed = false;
      if (op == uring::receive_op && result > 0 && buffer >= 0) {
        s->inbox.push({static_cast<std::uint32_t>(buffer), 0, static_cast<std::uint32_t>(result)});
        arrived = true;
      } else if (op == uring::accept_op && result >= 0) {
        s->inbox.push({static_cast<std::uint32_t>(result), 0, 0});
        arrived = true;
      } else {
        discard();
        // The end of the stream, or a failure the socket reports (a
        // receive's, not the ring's own: cancelled, out of buffers). An
        // accept's failure is left to the acceptor's own call.
        if (op == uring::receive_op && result <= 0 && result != -ECANCELED && result != -ENOBUFS) {
          s->ring_ended = true;
          s->ring_error = -result;
          closed = true;
        }
      }
      if (more && !s->ring_cancelling && s->inbox.size() >= inbox_cap) {
        r->cancel(user_data);  // enough waits unread: the kernel's buffer holds the rest
        s->ring_cancelling = true;
      }
      // The operation ended with nothing to read: the reader asks the
      // socket if it has something, else the operation is armed again -
      // unless the buffer ring ran dry on it (a receive armed now would
      // end at once, again and again): then the socket reads through epoll.
      if (op == uring::receive_op && result == -ENOBUFS) s->ring_dry = true;
      bool wake = arrived || closed;
      if (!wake && !more && s->inbox.empty()) {
        if (s->ring_dry) {
          read_through_epoll(*s, key);
        } else {
          wake = ended_empty(*s, key);
        }
      }
      if (wake) {
        s->readiness.set(read, closed);
        reader = take_waiter(*s, read);
      }
    }
  }
  if (retired) free_index(index_of(key));
  std::move(reader).wake();
}

}  // namespace lanes::detail
