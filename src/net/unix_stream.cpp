// net::unix_stream (include/lanes/net/unix_stream.hpp).
#include <lanes/net/unix_stream.hpp>

#include <sys/socket.h>

#include <cerrno>

#include <lanes/net/errors.hpp>

#include "net/connect.hpp"

namespace lanes::net {

task<unix_stream> unix_stream::connect(socket_address address) {
  if (!address.is_unix()) {
    throw address_error("lanes::net::unix_stream::connect: " + address.to_string() + " is not a Unix socket address");
  }
  co_return unix_stream(co_await detail::connect_stream(address), address);
}

std::pair<unix_stream, unix_stream> unix_stream::pair() {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, ends) < 0) {
    detail::throw_errno(errno, "socketpair", nullptr);
  }
  detail::socket_descriptor a(ends[0]);
  detail::socket_descriptor b(ends[1]);
  const socket_address unnamed = socket_address::from_native(nullptr, 0);
  return {unix_stream(std::move(a), unnamed), unix_stream(std::move(b), unnamed)};
}

}  // namespace lanes::net
