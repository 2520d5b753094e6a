// async_fd: a file descriptor (socket, pipe, eventfd, signalfd...) whose
// readiness io tasks can await, through the runtime's epoll driver - the
// same park/unpark path as the timers.
//
//   lanes::async_fd conn(socket_fd);                  // made non-blocking, registered
//   auto n = co_await conn.read_some(buffer);         // result<size_t, std::error_code>; 0: end of stream
//   co_await conn.readable();                         // or just wait for readiness
//
// - It does not own the descriptor: close it after the async_fd is gone.
// - readable() / writable() complete when the fd is ready for that
//   direction, has hung up, or has failed (the next read/write says which).
//   They take nothing, so they are cancellation-safe: a race lost or a task
//   cancelled while waiting consumes no bytes.
// - read_some / write_some do the syscall only after readiness, never while
//   a cancellation could still discard the result: cancelled while waiting,
//   they have read (written) nothing; a read that completed is returned.
// - One task may wait for each direction at a time: a second is a
//   runtime_misuse (it would take the first one's place).
// - One async_fd per descriptor and runtime: a second is a runtime_misuse
//   (epoll holds the fd once); share the first.
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

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/task.hpp>
#include <lanes/result.hpp>

namespace lanes {

class async_fd {
 public:
  // Must be called inside an io task (registers with that task's runtime).
  // An fd epoll cannot watch (a regular file) is a std::system_error.
  explicit async_fd(int fd);
  async_fd(async_fd&& other) noexcept
      : fds_(std::move(other.fds_)), key_(other.key_), fd_(std::exchange(other.fd_, -1)) {}
  async_fd& operator=(async_fd&& other) noexcept;
  async_fd(const async_fd&) = delete;
  async_fd& operator=(const async_fd&) = delete;
  ~async_fd() { release(); }

  int fd() const noexcept { return fd_; }

  class readiness {
   public:
    readiness(async_fd& fd, unsigned direction) noexcept : fd_(fd), direction_(direction) {}
    readiness(readiness&& other) noexcept : fd_(other.fd_), direction_(other.direction_) {}  // before it waits only
    readiness(const readiness&) = delete;
    readiness& operator=(const readiness&) = delete;
    ~readiness() {
      if (waiting_ != nullptr) detail::fd_disarm(*fd_.fds_, fd_.key_, direction_, waiting_);
    }
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h) {
      auto& self = detail::require_current_task("co_await async_fd readiness");
      self.set_resume_point(h);
      detail::waker w = self.make_waker();
      if (!fd_.fds_ || !detail::fd_arm(*fd_.fds_, fd_.key_, direction_, w)) {
        throw std::system_error(std::make_error_code(std::errc::bad_file_descriptor),
                                "lanes: waiting on an async_fd that is no longer registered");
      }
      waiting_ = &self;
      return true;
    }
    void await_resume() noexcept { waiting_ = nullptr; }

   private:
    async_fd& fd_;
    unsigned direction_;
    const detail::task_header* waiting_ = nullptr;  // armed for this task
  };

  readiness readable() noexcept { return readiness(*this, 0); }
  readiness writable() noexcept { return readiness(*this, 1); }

  // Reads what is there (at most buffer.size() bytes), waiting if nothing is.
  task<result<std::size_t, std::error_code>> read_some(std::span<std::byte> buffer);
  // Writes what fits (at least one byte unless buffer is empty), waiting for room.
  task<result<std::size_t, std::error_code>> write_some(std::span<const std::byte> buffer);

 private:
  void release() noexcept;
  template <class Syscall>
  task<result<std::size_t, std::error_code>> retry(unsigned direction, Syscall io);
  std::shared_ptr<detail::fd_registry> fds_;  // null: empty (moved from, released)
  std::uint64_t key_ = 0;
  int fd_ = -1;
};

}  // namespace lanes
