// net::unix_listener: a listening Unix stream socket, on a path or an
// abstract name; the same surface as tcp_listener.
//
//   auto listener = net::unix_listener::bind(net::socket_address::parse("unix:@app"));
//   auto [conn, peer] = co_await listener.accept();
//
// A path is a file the kernel creates at bind and never removes: bind
// fails (address in use) while the file of an earlier run is there, and
// the listener does not remove it when it closes - remove it yourself, or
// use an abstract name (unix:@name), which leaves no file behind.
#pragma once

#include <lanes/net/detail/listening_socket.hpp>
#include <lanes/net/listen_options.hpp>
#include <lanes/net/unix_stream.hpp>

namespace lanes::net {

class unix_listener {
 public:
  unix_listener() noexcept = default;  // not bound
  // address: a Unix path or abstract name (address_error otherwise).
  static unix_listener bind(const socket_address& address, const listen_options& options = {});

  detail::listening_socket::accept_operation<unix_stream> accept() { return socket_.accept<unix_stream>(); }

  const socket_address& local_address() const noexcept { return socket_.local_address(); }
  int native_handle() const noexcept { return socket_.native_handle(); }
  bool is_open() const noexcept { return socket_.is_open(); }
  void close() noexcept { socket_.close(); }

 private:
  explicit unix_listener(detail::listening_socket socket) noexcept : socket_(std::move(socket)) {}
  detail::listening_socket socket_;
};

}  // namespace lanes::net
