// net::udp_socket: a UDP socket - datagrams to and from any address, or,
// once connected, to and from one peer.
//
//   auto sock = net::udp_socket::bind(net::socket_address::parse("127.0.0.1:0"));
//   co_await sock.send_to(bytes, peer);
//   std::byte buf[1500];
//   auto got = co_await sock.recv_from(buf);   // got.size, got.from, got.truncated()
//
// A datagram larger than the buffer is cut to fit, and the rest of it is
// gone (the kernel keeps no part of a datagram once read): `size` is the
// datagram's true length, so truncated() shows it. send_to / recv_from
// are cancellation-safe as read_some and write_some are (stream_socket.hpp):
// cancelled while waiting, they have sent (received) nothing. One task
// receives and one sends at a time; closing the socket while a task waits
// on it wakes that task with operation_canceled.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cstddef>
#include <span>

#include <lanes/net/detail/checked_operation.hpp>
#include <lanes/net/detail/socket_descriptor.hpp>
#include <lanes/net/socket_address.hpp>

namespace lanes::net {

// A datagram received: its true length (more than the buffer held if
// truncated) and its sender.
struct datagram {
  std::size_t size = 0;
  std::size_t stored = 0;  // bytes written into the buffer: min(size, buffer size)
  socket_address from;
  bool truncated() const noexcept { return size > stored; }
};

class udp_socket {
  struct send_call {
    int fd;
    std::span<const std::byte> buffer;
    const socket_address* to;  // null: connected
    ssize_t operator()() const noexcept {
      return ::sendto(fd, buffer.data(), buffer.size(), MSG_NOSIGNAL, to != nullptr ? to->native() : nullptr,
                      to != nullptr ? to->native_size() : 0);
    }
  };
  struct receive_call {
    int fd;
    std::span<std::byte> buffer;
    sockaddr_storage from{};
    socklen_t from_size = 0;
    ssize_t operator()() noexcept;
  };
  class receive_operation : public detail::checked_operation<receive_call> {
   public:
    using detail::checked_operation<receive_call>::checked_operation;
    datagram await_resume();
  };

 public:
  udp_socket() noexcept = default;  // not bound
  // address: IPv4 or IPv6; port 0: the kernel picks one.
  static udp_socket bind(const socket_address& address);

  // The whole datagram or nothing: the count sent.
  detail::checked_operation<send_call> send_to(std::span<const std::byte> data, const socket_address& to) {
    return {socket_.operation(lanes::detail::fd_writable, "lanes::net send_to", send_call{socket_.fd(), data, &to}),
            "send_to", &to};
  }
  receive_operation recv_from(std::span<std::byte> buffer) {
    return {socket_.operation(lanes::detail::fd_readable, "lanes::net recv_from", receive_call{socket_.fd(), buffer}),
            "recv_from", &local_};
  }

  // Sets the one peer send() goes to and recv() hears from (datagrams of
  // other senders are dropped by the kernel). It does not wait.
  void connect(const socket_address& peer);
  detail::checked_operation<send_call> send(std::span<const std::byte> data) {
    return {socket_.operation(lanes::detail::fd_writable, "lanes::net send", send_call{socket_.fd(), data, nullptr}),
            "send", &peer_};
  }
  receive_operation recv(std::span<std::byte> buffer) { return recv_from(buffer); }

  const socket_address& local_address() const noexcept { return local_; }
  const socket_address& peer_address() const noexcept { return peer_; }  // kind none until connect()
  int native_handle() const noexcept { return socket_.fd(); }
  bool is_open() const noexcept { return socket_.is_open(); }
  void close() noexcept { socket_.close(); }

 private:
  detail::socket_descriptor socket_;
  socket_address local_;
  socket_address peer_;
};

}  // namespace lanes::net
