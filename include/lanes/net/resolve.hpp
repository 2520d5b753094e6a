// net::resolve: the addresses a host name stands for, from the system
// resolver (getaddrinfo: /etc/hosts, DNS), run on the blocking lane so no
// io worker waits for it. A numeric address ("127.0.0.1", "::1",
// "[::1]") is returned as it is, without reaching the resolver.
//
//   auto addresses = co_await net::resolve("localhost", 8080);
//   auto conn = co_await net::tcp_stream::connect(addresses.front());
//
// Failure is a std::system_error in resolve_category() ("resolve
// nowhere.invalid: Name or service not known"). The list is in the
// resolver's order (RFC 6724), without duplicates, never empty.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <lanes/io/task.hpp>
#include <lanes/net/socket_address.hpp>

namespace lanes::net {

task<std::vector<socket_address>> resolve(std::string host, std::uint16_t port);

}  // namespace lanes::net
