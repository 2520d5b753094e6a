// net::unix_stream: a connected Unix stream socket (reads, writes, split:
// stream_socket.hpp), to a path or an abstract name.
//
//   auto conn = co_await net::unix_stream::connect(net::socket_address::parse("unix:/run/app.sock"));
//   auto [a, b] = net::unix_stream::pair();   // two connected ends (socketpair)
#pragma once

#include <utility>

#include <lanes/io/task.hpp>
#include <lanes/net/stream_socket.hpp>

namespace lanes::net {

class unix_stream : public stream_socket {
 public:
  unix_stream() noexcept = default;  // not connected
  // Adopts a connected socket (what unix_listener::accept hands out).
  unix_stream(detail::socket_descriptor socket, socket_address peer) noexcept
      : stream_socket(std::move(socket), peer) {}

  // address: a Unix path or abstract name (address_error otherwise).
  static task<unix_stream> connect(socket_address address);
  // Two connected, unnamed ends.
  static std::pair<unix_stream, unix_stream> pair();
};

}  // namespace lanes::net
