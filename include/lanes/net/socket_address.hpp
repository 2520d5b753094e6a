// net::socket_address: where a socket is bound or connected - an IPv4 or
// IPv6 address and port, a Unix socket path, or a Linux abstract name -
// held as the sockaddr the kernel takes, parsed from text and printed back.
//
//   auto a = net::socket_address::parse("127.0.0.1:8080");
//   auto b = net::socket_address::parse("[::1]:443");
//   auto c = net::socket_address::parse("unix:/run/app.sock");
//   auto d = net::socket_address::parse("unix:@app");        // abstract: no file
//   a.to_string() == "127.0.0.1:8080"
//
// Text forms: `IPv4:port`, `[IPv6]:port` (with `%scope` inside the
// brackets for a link-local address: an interface name or index),
// `unix:path`, `unix:@name`. Addresses are numeric only: host names go
// through net::resolve (resolve.hpp), which runs the resolver on the
// blocking lane. Bad text is an address_error naming the text and what is
// wrong with it; try_parse returns that message instead of throwing.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <lanes/result.hpp>

namespace lanes::net {

class address_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class socket_address {
 public:
  enum class kind { none, ipv4, ipv6, unix_path, unix_abstract, unix_unnamed };

  socket_address() noexcept;  // kind::none: no address

  static socket_address parse(std::string_view text);  // throws address_error
  static result<socket_address, std::string> try_parse(std::string_view text);
  static socket_address ipv4_loopback(std::uint16_t port) noexcept;
  static socket_address ipv4_any(std::uint16_t port) noexcept;
  static socket_address ipv6_loopback(std::uint16_t port) noexcept;
  static socket_address unix_path(std::string_view path);      // throws address_error if too long
  static socket_address unix_abstract(std::string_view name);  // the same
  // What the kernel gave (accept, getsockname, recvfrom). `size` of 0: none.
  static socket_address from_native(const sockaddr* address, socklen_t size) noexcept;

  kind type() const noexcept;
  bool is_ip() const noexcept { return type() == kind::ipv4 || type() == kind::ipv6; }
  bool is_unix() const noexcept {
    return type() == kind::unix_path || type() == kind::unix_abstract || type() == kind::unix_unnamed;
  }
  std::uint16_t port() const noexcept;                 // 0 when not an IP address
  socket_address with_port(std::uint16_t port) const;  // address_error when not an IP address
  // The text parse() reads back ("unix:(unnamed)" and "(none)" excepted).
  std::string to_string() const;

  int family() const noexcept { return storage_.ss_family; }  // AF_INET, AF_INET6, AF_UNIX, AF_UNSPEC
  const sockaddr* native() const noexcept { return reinterpret_cast<const sockaddr*>(&storage_); }
  socklen_t native_size() const noexcept { return size_; }

  friend bool operator==(const socket_address& a, const socket_address& b) noexcept;

 private:
  sockaddr_storage storage_;
  socklen_t size_ = 0;
};

}  // namespace lanes::net
