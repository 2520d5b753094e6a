// connect_stream: a new stream socket connected to `address` - the one
// connect behind tcp_stream::connect and unix_stream::connect.
#pragma once

#include <lanes/io/task.hpp>
#include <lanes/net/detail/socket_descriptor.hpp>
#include <lanes/net/socket_address.hpp>

namespace lanes::net::detail {

// std::system_error ("connect ADDRESS: ...") if it fails. Cancelled while
// it waits, the half-open socket is closed.
task<socket_descriptor> connect_stream(socket_address address);

}  // namespace lanes::net::detail
