// connect_stream (connect.hpp): connect(2) on a non-blocking socket, then,
// if it is in progress, a wait for writability and SO_ERROR for the outcome.
#include "net/connect.hpp"

#include <cerrno>

#include <lanes/net/detail/checked_operation.hpp>
#include <lanes/net/errors.hpp>

namespace lanes::net::detail {

namespace {

// The first call connects; while that is in progress (EINPROGRESS, told to
// fd_operation as EAGAIN so that it waits for writability) each later call
// reads the outcome from SO_ERROR.
struct connect_call {
  int fd;
  const socket_address* address;
  bool started = false;
  ssize_t operator()() noexcept {
    if (!started) {
      started = true;
      if (::connect(fd, address->native(), address->native_size()) == 0) return 0;
      if (errno == EINPROGRESS) errno = EAGAIN;
      return -1;
    }
    int error = 0;
    socklen_t size = sizeof error;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) < 0) return -1;
    if (error == 0) return 0;
    errno = error == EINPROGRESS ? EAGAIN : error;
    return -1;
  }
};

}  // namespace

task<socket_descriptor> connect_stream(socket_address address) {
  socket_descriptor socket = socket_descriptor::open(address.family(), SOCK_STREAM, "connect", address);
  co_await checked_operation<connect_call>(
      socket.operation(lanes::detail::fd_writable, "lanes::net connect", connect_call{socket.fd(), &address}),
      "connect", &address);
  co_return socket;
}

}  // namespace lanes::net::detail
