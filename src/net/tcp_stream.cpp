// net::tcp_stream (include/lanes/net/tcp_stream.hpp).
#include <lanes/net/tcp_stream.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include "net/connect.hpp"

namespace lanes::net {

task<tcp_stream> tcp_stream::connect(socket_address address) {
  if (!address.is_ip())
    throw address_error("lanes::net::tcp_stream::connect: " + address.to_string() + " is not an IP address");
  co_return tcp_stream(co_await detail::connect_stream(address), address);
}

void tcp_stream::set_nodelay(bool on) {
  socket_.set_option(IPPROTO_TCP, TCP_NODELAY, on ? 1 : 0, "setsockopt TCP_NODELAY");
}
bool tcp_stream::nodelay() const { return socket_.option(IPPROTO_TCP, TCP_NODELAY, "getsockopt TCP_NODELAY") != 0; }
void tcp_stream::set_keepalive(bool on) {
  socket_.set_option(SOL_SOCKET, SO_KEEPALIVE, on ? 1 : 0, "setsockopt SO_KEEPALIVE");
}
bool tcp_stream::keepalive() const { return socket_.option(SOL_SOCKET, SO_KEEPALIVE, "getsockopt SO_KEEPALIVE") != 0; }

}  // namespace lanes::net
