// net::listen_options: how tcp_listener::bind and unix_listener::bind set
// up a listening socket.
#pragma once

#include <sys/socket.h>

#include <lanes/net/socket_address.hpp>

namespace lanes::net {

struct listen_options {
  // Connections the kernel queues until accept() takes them (listen(2);
  // the kernel caps it at net.core.somaxconn).
  int backlog = SOMAXCONN;
  // TCP: SO_REUSEADDR, so a restarted server binds again at once although
  // connections of its last run linger in TIME_WAIT.
  bool reuse_address = true;
  // TCP: SO_REUSEPORT, so several listeners (one per worker or process)
  // share the port and the kernel spreads connections among them.
  bool reuse_port = false;
};

// What accept() gives: the new connection and the peer's address.
template <class Stream>
struct accepted {
  Stream stream;
  socket_address peer;
};

}  // namespace lanes::net
