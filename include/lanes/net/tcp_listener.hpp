// net::tcp_listener: a listening TCP socket.
//
//   auto listener = net::tcp_listener::bind(net::socket_address::parse("127.0.0.1:0"));
//   std::uint16_t port = listener.local_address().port();   // the port the kernel chose
//   for (;;) {
//     auto [conn, peer] = co_await listener.accept();
//     lanes::spawn(serve(std::move(conn)));
//   }
//
// bind() may run outside a task (the socket registers with the runtime of
// the first task that accepts). accept() is cancellation-safe: cancelled,
// it has taken no connection (listening_socket.hpp). Closing or
// destroying the listener while a task accepts wakes that task with
// operation_canceled. Failures name the operation and the address ("bind
// 0.0.0.0:80: Permission denied").
#pragma once

#include <lanes/net/detail/listening_socket.hpp>
#include <lanes/net/listen_options.hpp>
#include <lanes/net/tcp_stream.hpp>

namespace lanes::net {

class tcp_listener {
 public:
  tcp_listener() noexcept = default;  // not bound
  // address: IPv4 or IPv6 (address_error otherwise); port 0: the kernel picks one.
  static tcp_listener bind(const socket_address& address, const listen_options& options = {});

  detail::listening_socket::accept_operation<tcp_stream> accept() { return socket_.accept<tcp_stream>(); }

  const socket_address& local_address() const noexcept { return socket_.local_address(); }
  int native_handle() const noexcept { return socket_.native_handle(); }
  bool is_open() const noexcept { return socket_.is_open(); }
  void close() noexcept { socket_.close(); }

 private:
  explicit tcp_listener(detail::listening_socket socket) noexcept : socket_(std::move(socket)) {}
  detail::listening_socket socket_;
};

}  // namespace lanes::net
