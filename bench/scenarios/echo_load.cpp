// echo_load (echo_load.hpp).
#include "echo_load.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace lanes::bench {

namespace {

using steady = std::chrono::steady_clock;

int connect_blocking(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

struct connection {
  int fd = -1;
  std::size_t sent = 0;      // of the message in flight
  std::size_t received = 0;  // of its echo
  steady::time_point started;
};

double percentile_us(std::vector<std::uint32_t>& ns, double p) {
  if (ns.empty()) return 0;
  const auto k = static_cast<std::size_t>(p * static_cast<double>(ns.size() - 1));
  std::nth_element(ns.begin(), ns.begin() + static_cast<std::ptrdiff_t>(k), ns.end());
  return ns[k] / 1000.0;
}

}  // namespace

echo_load_result run_echo_load(std::uint16_t port, int connections, std::size_t message_size,
                               std::chrono::milliseconds warmup, std::chrono::milliseconds duration) {
  echo_load_result result;
  const int ep = ::epoll_create1(EPOLL_CLOEXEC);
  std::vector<connection> conns(static_cast<std::size_t>(connections));
  const std::vector<char> message(message_size, 'e');
  std::vector<char> sink(64 * 1024);
  std::vector<std::uint32_t> round_trips;
  round_trips.reserve(1 << 20);
  auto fail = [&](const char* what) { result.failure = std::string(what) + ": " + std::strerror(errno); };
  // Sends what is left of the message: false on an error.
  auto send_rest = [&](connection& c) {
    while (c.sent < message_size) {
      const ssize_t n = ::send(c.fd, message.data() + c.sent, message_size - c.sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) return errno == EAGAIN;  // the rest goes when it is writable (EPOLLOUT below)
      c.sent += static_cast<std::size_t>(n);
    }
    return true;
  };
  for (std::size_t i = 0; i < conns.size() && result.failure.empty(); ++i) {
    conns[i].fd = connect_blocking(port);
    if (conns[i].fd < 0) {
      fail("connect");
      break;
    }
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
    ev.data.u64 = i;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
  }
  const auto measure_from = steady::now() + warmup;
  const auto stop_at = measure_from + duration;
  std::uint64_t measured = 0;
  if (result.failure.empty()) {
    for (auto& c : conns) {
      c.started = steady::now();
      if (!send_rest(c)) fail("send");
    }
  }
  epoll_event events[256];
  while (result.failure.empty()) {
    const auto now = steady::now();
    if (now >= stop_at) break;
    const int n = ::epoll_wait(ep, events, 256, 10);
    for (int e = 0; e < n && result.failure.empty(); ++e) {
      connection& c = conns[events[e].data.u64];
      if (!send_rest(c)) {
        fail("send");
        break;
      }
      for (;;) {  // edge-triggered: read until EAGAIN
        const ssize_t got = ::recv(c.fd, sink.data(), sink.size(), MSG_DONTWAIT);
        if (got == 0) {
          errno = ECONNRESET;
          fail("the server closed a connection");
          break;
        }
        if (got < 0) {
          if (errno != EAGAIN) fail("recv");
          break;
        }
        c.received += static_cast<std::size_t>(got);
        while (c.received >= message_size && c.sent == message_size) {  // one round trip done
          const auto done = steady::now();
          if (c.started >= measure_from && done <= stop_at) {
            ++measured;
            round_trips.push_back(static_cast<std::uint32_t>(std::min<std::int64_t>(
                std::chrono::duration_cast<std::chrono::nanoseconds>(done - c.started).count(), UINT32_MAX)));
          }
          c.received -= message_size;
          c.sent = 0;
          c.started = done;
          if (!send_rest(c)) {
            fail("send");
            break;
          }
        }
      }
    }
  }
  for (auto& c : conns) {
    if (c.fd >= 0) ::close(c.fd);
  }
  ::close(ep);
  result.requests = measured;
  result.requests_per_s = static_cast<double>(measured) / std::chrono::duration<double>(duration).count();
  result.p50_us = percentile_us(round_trips, 0.50);
  result.p99_us = percentile_us(round_trips, 0.99);
  return result;
}

double run_accept_rate(std::uint16_t port, std::chrono::milliseconds duration, std::string& failure) {
  const auto stop_at = steady::now() + duration;
  std::uint64_t count = 0;
  const auto start = steady::now();
  while (steady::now() < stop_at) {
    const int fd = connect_blocking(port);
    if (fd < 0) {
      failure = std::string("connect: ") + std::strerror(errno);
      return 0;
    }
    char byte = 'a';
    if (::send(fd, &byte, 1, MSG_NOSIGNAL) != 1 || ::recv(fd, &byte, 1, 0) != 1) {
      failure = std::string("echo of one byte: ") + std::strerror(errno);
      ::close(fd);
      return 0;
    }
    const linger reset{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    ::close(fd);
    ++count;
  }
  return static_cast<double>(count) / std::chrono::duration<double>(steady::now() - start).count();
}

}  // namespace lanes::bench
