// Loopback TCP plumbing shared by the examples: a listening socket on
// 127.0.0.1, accept and connect as lanes tasks (async_fd readiness), and
// line reads. Plain POSIX sockets: lanes has no socket types yet.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>

#include <lanes/io/async_fd.hpp>
#include <lanes/io/task.hpp>

namespace example {

inline int checked(int r, const char* what) {
  if (r < 0) throw std::system_error(errno, std::generic_category(), what);
  return r;
}

// A non-blocking listening socket on 127.0.0.1 and a kernel-chosen port.
struct listener {
  int fd = -1;
  std::uint16_t port = 0;
  listener() {
    fd = checked(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), "socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    checked(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), "bind");
    checked(::listen(fd, 128), "listen");
    socklen_t len = sizeof addr;
    checked(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), "getsockname");
    port = ntohs(addr.sin_port);
  }
  ~listener() { ::close(fd); }
  listener(const listener&) = delete;
  listener& operator=(const listener&) = delete;
};

// The next connection (a non-blocking fd the caller owns).
inline lanes::task<int> accept_one(lanes::async_fd& listening) {
  for (;;) {
    const int c = ::accept4(listening.fd(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c >= 0) co_return c;
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) checked(-1, "accept4");
    co_await listening.readable();
  }
}

// A connected socket to 127.0.0.1:port (the caller owns it).
inline lanes::task<int> connect_to(std::uint16_t port) {
  const int fd = checked(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), "socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0 && errno != EINPROGRESS) {
    ::close(fd);
    checked(-1, "connect");
  }
  lanes::async_fd c(fd);
  co_await c.writable();  // connected (or failed: the first write says)
  co_return fd;
}

// Reads up to and without '\n'; nullopt if the peer closed first.
inline lanes::task<std::optional<std::string>> read_line(lanes::async_fd& conn) {
  std::string line;
  char ch = 0;
  for (;;) {
    auto n = co_await conn.read_some({reinterpret_cast<std::byte*>(&ch), 1});
    if (!n || n.value() == 0) co_return std::nullopt;
    if (ch == '\n') co_return line;
    line.push_back(ch);
  }
}

inline lanes::task<void> write_all(lanes::async_fd& conn, std::string text) {
  std::size_t done = 0;
  while (done < text.size()) {
    auto n = co_await conn.write_some({reinterpret_cast<const std::byte*>(text.data()) + done, text.size() - done});
    if (!n) co_return;  // the peer is gone
    done += n.value();
  }
}

}  // namespace example
