// socket_descriptor (include/lanes/net/detail/socket_descriptor.hpp).
#include <lanes/net/detail/socket_descriptor.hpp>

#include <unistd.h>

#include <cerrno>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/net/errors.hpp>

namespace lanes::net::detail {

socket_descriptor::socket_descriptor(int fd) : fd_(fd) {
  if (lanes::detail::current_scheduler() != nullptr) registered();
}

socket_descriptor socket_descriptor::open(int family, int type, const char* operation, const socket_address& address) {
  socket_descriptor s;
  s.fd_ = ::socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s.fd_ < 0) throw_errno(errno, operation, &address);
  return s;
}

void socket_descriptor::close() noexcept {
  registration_ = async_fd();  // deregisters first: a waiting task is woken and touches nothing
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
}

async_fd& socket_descriptor::registered() {
  if (!registration_.registered() && fd_ >= 0) {
    registration_ = async_fd(fd_, async_fd::nonblocking);
    apply_ring_reading();
  }
  return registration_;
}

void socket_descriptor::read_through_ring(ring_reading what) noexcept {
  reading_ = what;
  if (registration_.registered()) apply_ring_reading();
}

void socket_descriptor::apply_ring_reading() noexcept {
  // On epoll (or without a ring) this is a no: the socket reads through readiness.
  if (reading_ != ring_reading::none) {
    lanes::detail::fd_use_ring(registration_.registration(), reading_ == ring_reading::accept);
  }
}

socket_address socket_descriptor::local_address() const {
  sockaddr_storage storage{};
  socklen_t size = sizeof storage;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&storage), &size) < 0) throw_errno(errno, "getsockname", nullptr);
  return socket_address::from_native(reinterpret_cast<sockaddr*>(&storage), size);
}

socket_address socket_descriptor::peer_address() const {
  sockaddr_storage storage{};
  socklen_t size = sizeof storage;
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&storage), &size) < 0) throw_errno(errno, "getpeername", nullptr);
  return socket_address::from_native(reinterpret_cast<sockaddr*>(&storage), size);
}

void socket_descriptor::set_option(int level, int name, int value, const char* operation) const {
  if (::setsockopt(fd_, level, name, &value, sizeof value) < 0) throw_errno(errno, operation, nullptr);
}

int socket_descriptor::option(int level, int name, const char* operation) const {
  int value = 0;
  socklen_t size = sizeof value;
  if (::getsockopt(fd_, level, name, &value, &size) < 0) throw_errno(errno, operation, nullptr);
  return value;
}

}  // namespace lanes::net::detail
