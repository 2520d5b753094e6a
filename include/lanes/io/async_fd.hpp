// async_fd: a file descriptor (socket, pipe, eventfd, signalfd...) whose
// readiness io tasks can await, through the runtime's epoll driver - the
// same park/unpark path as the timers. The socket types (lanes/net/) are
// built on it.
//
//   lanes::async_fd conn(socket_fd);                  // made non-blocking, registered
//   auto n = co_await conn.read_some(buffer);         // result<size_t, std::error_code>; 0: end of stream
//   co_await conn.readable();                         // or just wait for readiness
//   auto r = co_await conn.async_io(lanes::async_fd::read_direction,   // any call: tried, and on
//                                   [&] { return ::recv(fd, p, n, 0); });  // EAGAIN retried when ready
//
// - It does not own the descriptor: close it after the async_fd is gone.
// - readable() / writable() complete when the fd is ready for that
//   direction, has hung up, or has failed (the next read/write says which).
//   They take nothing, so they are cancellation-safe: a race lost or a task
//   cancelled while waiting consumes no bytes.
// - read_some / write_some / async_io make the call only while the task
//   runs (detail/fd_operation.hpp): cancelled while waiting, they have read
//   (written) nothing; a call that completed is returned.
// - One task may wait for each direction at a time: a second is a
//   runtime_misuse (it would take the first one's place).
// - One async_fd per descriptor and runtime: a second is a runtime_misuse
//   (epoll holds the fd once); share the first.
// - Destroyed (or moved over) while a task waits on it, it wakes that
//   task: readable()/writable() throw std::system_error (operation
//   canceled), the calls return ECANCELED.
// - It may outlive its runtime: it then deregisters into nothing, and a
//   wait on it is a std::system_error (bad_file_descriptor).
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <system_error>
#include <utility>

#include <lanes/io/detail/fd_operation.hpp>
#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/result.hpp>

namespace lanes {

class async_fd {
 public:
  // Must be called inside an io task (registers with that task's runtime).
  // An fd epoll cannot watch (a regular file) is a std::system_error.
  explicit async_fd(int fd);
  // The same for an fd opened non-blocking already (SOCK_NONBLOCK, O_NONBLOCK): no fcntl.
  struct nonblocking_t {};
  static constexpr nonblocking_t nonblocking{};
  async_fd(int fd, nonblocking_t);
  async_fd() noexcept = default;  // empty: registered with nothing (operations fail with EBADF)
  async_fd(async_fd&& other) noexcept
      : fds_(std::move(other.fds_)), registration_(std::exchange(other.registration_, {})) {}
  async_fd& operator=(async_fd&& other) noexcept;
  async_fd(const async_fd&) = delete;
  async_fd& operator=(const async_fd&) = delete;
  ~async_fd() { release(); }

  int fd() const noexcept { return registration_.fd; }
  bool registered() const noexcept { return fds_ != nullptr; }
  // What operations on it copy (the socket types' calls read it).
  const detail::fd_registration& registration() const noexcept { return registration_; }

  static constexpr unsigned read_direction = detail::fd_readable;
  static constexpr unsigned write_direction = detail::fd_writable;

  // Readiness alone: completes when the kernel says the direction is
  // ready (asked with poll(2) when the driver's last word says so, so a
  // stale ready bit never completes it: fd_readiness.hpp).
  class readiness {
   public:
    readiness(async_fd& fd, unsigned direction) noexcept : registration_(fd.registration_), direction_(direction) {}
    readiness(readiness&& other) noexcept  // before it waits only
        : registration_(other.registration_), direction_(other.direction_) {}
    readiness(const readiness&) = delete;
    readiness& operator=(const readiness&) = delete;
    ~readiness() {
      if (waiting_ != nullptr) detail::fd_disarm(registration_, direction_, waiting_);
    }
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h) {
      auto& self = detail::require_current_task("co_await async_fd readiness");
      self.set_resume_point(h);
      detail::waker w = self.make_waker();
      if (registration_.table == nullptr) throw_gone();
      for (;;) {
        if (detail::fd_really_ready(registration_, direction_)) return false;  // ready now: no wait
        switch (detail::fd_arm(registration_, direction_, w, &removed_)) {
          case detail::fd_arm_result::waiting:
            waiting_ = &self;
            return true;
          case detail::fd_arm_result::ready:
            continue;
          case detail::fd_arm_result::gone:
            throw_gone();
        }
      }
    }
    void await_resume() {
      waiting_ = nullptr;
      if (removed_) {
        throw std::system_error(std::make_error_code(std::errc::operation_canceled),
                                "lanes: the async_fd was closed while a task waited on it");
      }
    }

   private:
    [[noreturn]] static void throw_gone() {
      throw std::system_error(std::make_error_code(std::errc::bad_file_descriptor),
                              "lanes: waiting on an async_fd that is no longer registered");
    }
    detail::fd_registration registration_;
    unsigned direction_;
    bool removed_ = false;                          // set by the registry if it is removed while waiting
    const detail::task_header* waiting_ = nullptr;  // armed for this task
  };

  readiness readable() noexcept { return readiness(*this, 0); }
  readiness writable() noexcept { return readiness(*this, 1); }

  // `attempt` (ssize_t(), -1 and errno on failure) made now, and again
  // each time the fd is ready for `direction` while it fails with EAGAIN:
  // co_await gives its detail::fd_result (the value, or the errno).
  template <class Attempt>
  detail::fd_operation<Attempt> async_io(unsigned direction, Attempt attempt, const char* what = "lanes::async_fd") {
    return detail::fd_operation<Attempt>(registration_, direction, what, std::move(attempt));
  }

  // Reads what is there (at most buffer.size() bytes), waiting if nothing is.
  auto read_some(std::span<std::byte> buffer) {
    return as_result(async_io(read_direction, reader{registration_.fd, buffer}));
  }
  // Writes what fits (at least one byte unless buffer is empty), waiting for room.
  auto write_some(std::span<const std::byte> buffer) {
    return as_result(async_io(write_direction, writer{registration_.fd, buffer}));
  }

 private:
  struct reader {
    int fd;
    std::span<std::byte> buffer;
    ssize_t operator()() const noexcept;
  };
  struct writer {
    int fd;
    std::span<const std::byte> buffer;
    ssize_t operator()() const noexcept;
  };
  // The operation, its outcome as a result<size_t, std::error_code>.
  template <class Attempt>
  struct result_awaiter : detail::fd_operation<Attempt> {
    result<std::size_t, std::error_code> await_resume() {
      const detail::fd_result r = detail::fd_operation<Attempt>::await_resume();
      if (!r) return std::error_code(r.error, std::generic_category());
      return static_cast<std::size_t>(r.value);
    }
  };
  template <class Attempt>
  static result_awaiter<Attempt> as_result(detail::fd_operation<Attempt>&& op) {
    return result_awaiter<Attempt>{std::move(op)};
  }

  void release() noexcept;
  std::shared_ptr<detail::fd_registry> fds_;  // null: empty (moved from, released)
  detail::fd_registration registration_;      // what operations copy (its table: fds_.get())
};

}  // namespace lanes
