// async_fd (include/lanes/io/async_fd.hpp): registration, and the calls
// read_some and write_some hand to fd_operation (lanes/io/detail/fd_operation.hpp).
#include <lanes/io/async_fd.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include <lanes/io/errors.hpp>

namespace lanes {

async_fd::async_fd(int fd) : async_fd(fd, nonblocking) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    // The delegated constructor has finished: the destructor deregisters.
    throw std::system_error(errno, std::generic_category(), "lanes::async_fd: making the fd non-blocking");
  }
}

async_fd::async_fd(int fd, nonblocking_t) {
  detail::scheduler* s = detail::current_scheduler();
  if (s == nullptr) throw runtime_misuse("lanes::async_fd made outside an io task: make it inside a task");
  auto fds = detail::fd_table(*s);
  registration_ = detail::fd_register(*fds, fd);
  fds_ = std::move(fds);
}

async_fd& async_fd::operator=(async_fd&& other) noexcept {
  if (this != &other) {
    release();
    fds_ = std::move(other.fds_);
    registration_ = std::exchange(other.registration_, {});
  }
  return *this;
}

void async_fd::release() noexcept {
  if (fds_) detail::fd_deregister(*fds_, registration_.key);
  fds_.reset();
  registration_ = {};
}

ssize_t async_fd::reader::operator()() const noexcept { return ::read(fd, buffer.data(), buffer.size()); }
ssize_t async_fd::writer::operator()() const noexcept { return ::write(fd, buffer.data(), buffer.size()); }

}  // namespace lanes

namespace lanes::detail {

void throw_readiness_taken(const char* what) {
  throw runtime_misuse(std::string(what) +
                       ": the descriptor was ready, then nothing was there: another task took it (one task per "
                       "direction of a descriptor at a time)");
}

}  // namespace lanes::detail
