// async_fd (include/lanes/io/async_fd.hpp): registration and the read/write
// loops (try the syscall; on EAGAIN wait for readiness and try again).
#include <lanes/io/async_fd.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <lanes/io/errors.hpp>

namespace lanes {

async_fd::async_fd(int fd) {
  detail::scheduler* s = detail::current_scheduler();
  if (s == nullptr) throw runtime_misuse("lanes::async_fd made outside an io task: make it inside a task");
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    throw std::system_error(errno, std::generic_category(), "lanes::async_fd: making the fd non-blocking");
  }
  auto fds = detail::fd_table(*s);
  key_ = detail::fd_register(*fds, fd);
  fds_ = std::move(fds);
  fd_ = fd;
}

async_fd& async_fd::operator=(async_fd&& other) noexcept {
  if (this != &other) {
    release();
    fds_ = std::move(other.fds_);
    key_ = other.key_;
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void async_fd::release() noexcept {
  if (fds_) detail::fd_deregister(*fds_, key_);
  fds_.reset();
  fd_ = -1;
}

// The one loop behind read_some and write_some: try `io`; on EAGAIN wait
// for readiness in `direction`, then try again.
template <class Syscall>
task<result<std::size_t, std::error_code>> async_fd::retry(unsigned direction, Syscall io) {
  for (;;) {
    const auto n = io();
    if (n >= 0) co_return static_cast<std::size_t>(n);
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) co_return std::error_code(errno, std::generic_category());
    co_await readiness(*this, direction);
  }
}

task<result<std::size_t, std::error_code>> async_fd::read_some(std::span<std::byte> buffer) {
  return retry(0, [fd = fd_, buffer] { return ::read(fd, buffer.data(), buffer.size()); });
}

task<result<std::size_t, std::error_code>> async_fd::write_some(std::span<const std::byte> buffer) {
  return retry(1, [fd = fd_, buffer] { return ::write(fd, buffer.data(), buffer.size()); });
}

}  // namespace lanes
