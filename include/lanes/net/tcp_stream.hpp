// net::tcp_stream: a TCP connection (reads, writes, split: stream_socket.hpp).
//
//   auto conn = co_await net::tcp_stream::connect(net::socket_address::parse("127.0.0.1:8080"));
//   auto r = co_await lanes::timeout(2s, net::tcp_stream::connect(address));  // bounded
//   conn.set_nodelay(true);
//
// connect() fails with std::system_error ("connect 127.0.0.1:1: Connection
// refused"). Cancelled (a timeout), it closes the half-open socket.
#pragma once

#include <lanes/io/task.hpp>
#include <lanes/net/stream_socket.hpp>

namespace lanes::net {

class tcp_stream : public stream_socket {
 public:
  tcp_stream() noexcept = default;  // not connected
  // Adopts a connected socket (what tcp_listener::accept hands out).
  tcp_stream(detail::socket_descriptor socket, socket_address peer) noexcept : stream_socket(std::move(socket), peer) {}

  // address: IPv4 or IPv6 (address_error otherwise).
  static task<tcp_stream> connect(socket_address address);

  void set_nodelay(bool on);  // TCP_NODELAY: send small writes at once (no Nagle)
  bool nodelay() const;
  void set_keepalive(bool on);  // SO_KEEPALIVE, with the kernel's timings
  bool keepalive() const;
};

}  // namespace lanes::net
