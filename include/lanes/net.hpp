// lanes/net.hpp: the socket types of the io lane (docs/net.md).
#pragma once

#include <lanes/net/errors.hpp>
#include <lanes/net/resolve.hpp>
#include <lanes/net/socket_address.hpp>
#include <lanes/net/tcp_listener.hpp>
#include <lanes/net/tcp_stream.hpp>
#include <lanes/net/udp_socket.hpp>
#include <lanes/net/unix_listener.hpp>
#include <lanes/net/unix_stream.hpp>
