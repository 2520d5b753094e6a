// listening_socket (include/lanes/net/detail/listening_socket.hpp).
#include <lanes/net/detail/listening_socket.hpp>

#include <lanes/net/errors.hpp>

namespace lanes::net::detail {

int accept_call::accept_one() noexcept {
  peer_size = sizeof peer;
  if (!listening.readiness->from_ring()) {
    return ::accept4(listening.fd, reinterpret_cast<sockaddr*>(&peer), &peer_size, SOCK_NONBLOCK | SOCK_CLOEXEC);
  }
  const auto c = static_cast<int>(lanes::detail::fd_ring_accept(listening));
  if (c >= 0 && ::getpeername(c, reinterpret_cast<sockaddr*>(&peer), &peer_size) < 0) {
    const int error = errno;  // ENOTCONN: reset while queued, as accept4 reports with ECONNABORTED
    ::close(c);
    errno = error == ENOTCONN ? ECONNABORTED : error;
    return -1;
  }
  return c;
}

ssize_t accept_call::operator()() noexcept {
  for (;;) {
    const int c = accept_one();
    if (c >= 0) {
      accepted = c;
      return 0;
    }
    switch (errno) {
      case ECONNABORTED:  // a queued connection that died: take the next
      case EPROTO:
      case ENETDOWN:
      case ENOPROTOOPT:
      case EHOSTDOWN:
      case ENONET:
      case EHOSTUNREACH:
      case EOPNOTSUPP:
      case ENETUNREACH:
        continue;
      default:
        return -1;
    }
  }
}

listening_socket::listening_socket(const socket_address& address, const listen_options& options)
    : socket_(socket_descriptor::open(address.family(), SOCK_STREAM, "bind", address)) {
  socket_.read_through_ring(socket_descriptor::ring_reading::accept);
  if (address.is_ip()) {
    if (options.reuse_address) socket_.set_option(SOL_SOCKET, SO_REUSEADDR, 1, "setsockopt SO_REUSEADDR");
    if (options.reuse_port) socket_.set_option(SOL_SOCKET, SO_REUSEPORT, 1, "setsockopt SO_REUSEPORT");
  }
  if (::bind(socket_.fd(), address.native(), address.native_size()) < 0) throw_errno(errno, "bind", &address);
  if (::listen(socket_.fd(), options.backlog) < 0) throw_errno(errno, "listen", &address);
  local_ = socket_.local_address();
}

}  // namespace lanes::net::detail
