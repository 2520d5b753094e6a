// net::udp_socket (include/lanes/net/udp_socket.hpp).
#include <lanes/net/udp_socket.hpp>

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>

#include <lanes/net/errors.hpp>

namespace lanes::net {

// recvmsg with MSG_TRUNC returns a datagram's true length, however much of
// it fit in the buffer.
ssize_t udp_socket::receive_call::operator()() noexcept {
  iovec part{buffer.data(), buffer.size()};
  msghdr message{};
  message.msg_name = &from;
  message.msg_namelen = sizeof from;
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  const ssize_t n = ::recvmsg(fd, &message, MSG_TRUNC);
  from_size = message.msg_namelen;
  return n;
}

datagram udp_socket::receive_operation::await_resume() {
  const std::size_t size = detail::checked_operation<receive_call>::await_resume();
  receive_call& call = attempt();
  return {size, std::min(size, call.buffer.size()),
          socket_address::from_native(reinterpret_cast<const sockaddr*>(&call.from), call.from_size)};
}

udp_socket udp_socket::bind(const socket_address& address) {
  if (!address.is_ip())
    throw address_error("lanes::net::udp_socket::bind: " + address.to_string() + " is not an IP address");
  udp_socket s;
  s.socket_ = detail::socket_descriptor::open(address.family(), SOCK_DGRAM, "bind", address);
  if (::bind(s.socket_.fd(), address.native(), address.native_size()) < 0) detail::throw_errno(errno, "bind", &address);
  s.local_ = s.socket_.local_address();
  return s;
}

void udp_socket::connect(const socket_address& peer) {
  if (::connect(socket_.fd(), peer.native(), peer.native_size()) < 0) detail::throw_errno(errno, "connect", &peer);
  peer_ = peer;
}

}  // namespace lanes::net
