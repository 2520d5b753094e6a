// connect_stream (connect.hpp): connect(2) on a non-blocking socket, then,
// if it is in progress, a wait for writability and SO_ERROR for the outcome.
#include "net/connect.hpp"

#include <cerrno>

#include <lanes/net/detail/checked_operation.hpp>
#include <lanes/net/errors.hpp>

namespace lanes::net::detail {

namespace {

// After connect(2) said EINPROGRESS: the outcome, once the socket is
// writable. SO_ERROR holds a failure; a socket still connecting (no peer
// yet) is told to fd_operation as EAGAIN, so that it waits.
struct connect_outcome_call {
  int fd;
  ssize_t operator()() const noexcept {
    int error = 0;
    socklen_t size = sizeof error;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) < 0) return -1;
    if (error != 0) {
      errno = error;
      return -1;
    }
    sockaddr_storage peer{};
    socklen_t peer_size = sizeof peer;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) == 0) return 0;
    if (errno == ENOTCONN) errno = EAGAIN;
    return -1;
  }
};

}  // namespace

task<socket_descriptor> connect_stream(socket_address address) {
  socket_descriptor socket = socket_descriptor::open(address.family(), SOCK_STREAM, "connect", address);
  if (::connect(socket.fd(), address.native(), address.native_size()) != 0) {
    if (errno != EINPROGRESS) throw_errno(errno, "connect", &address);
    // Registered by this first operation, while it connects: the driver
    // reports nothing of the socket's state from before the connect.
    co_await checked_operation<connect_outcome_call>(
        socket.operation(lanes::detail::fd_writable, "lanes::net connect", connect_outcome_call{socket.fd()}),
        "connect", &address);
  }
  co_return socket;
}

}  // namespace lanes::net::detail
