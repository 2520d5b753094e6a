// net::tcp_listener and net::unix_listener (include/lanes/net/): bind,
// after checking the address is of their kind.
#include <lanes/net/tcp_listener.hpp>
#include <lanes/net/unix_listener.hpp>

namespace lanes::net {

tcp_listener tcp_listener::bind(const socket_address& address, const listen_options& options) {
  if (!address.is_ip())
    throw address_error("lanes::net::tcp_listener::bind: " + address.to_string() + " is not an IP address");
  return tcp_listener(detail::listening_socket(address, options));
}

unix_listener unix_listener::bind(const socket_address& address, const listen_options& options) {
  if (!address.is_unix()) {
    throw address_error("lanes::net::unix_listener::bind: " + address.to_string() + " is not a Unix socket address");
  }
  return unix_listener(detail::listening_socket(address, options));
}

}  // namespace lanes::net
