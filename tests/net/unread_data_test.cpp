// Data nobody reads yet, on both backends: far more than a read takes
// arriving at once on one connection, on many connections at once (on
// io_uring: more than the driver's buffer ring holds), and connections
// queued on a listener that is closed. Nothing is lost or reordered, and
// every descriptor comes back.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <system_error>
#include <variant>
#include <vector>

#include <lanes/compose/select.hpp>
#include <lanes/io/join_handle.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/net.hpp>

#include "net_test_support.hpp"

namespace lanes::net {
namespace {

using namespace std::chrono_literals;
using namespace testing;

class UnreadData : public NetTest {};
LANES_NET_SUITE(UnreadData);

std::byte pattern(std::size_t i, std::size_t stream) { return static_cast<std::byte>((i * 7 + stream * 13) % 251); }

// Sends a greeting (one byte: the stream's number) and waits for its
// answer, then sends `size` bytes of the stream's pattern, then closes.
task<void> send_pattern(socket_address to, std::size_t size, std::size_t stream) {
  auto conn = co_await tcp_stream::connect(to);
  std::byte greeting[1] = {static_cast<std::byte>(stream)};
  co_await conn.write_all(greeting);
  co_await conn.read_exact(greeting);
  std::vector<std::byte> data(size);
  for (std::size_t i = 0; i < size; ++i) data[i] = pattern(i, stream);
  co_await conn.write_all(data);
  conn.shutdown_write();
}

// Reads the greeting with a larger buffer (a short read: on io_uring the
// multishot receive is armed from here on): the stream's number.
task<std::size_t> read_greeting(tcp_stream& conn) {
  std::byte greeting[16];
  EXPECT_EQ(co_await conn.read_some(greeting), 1U);
  co_await conn.write_all(std::span(greeting, 1));
  co_return static_cast<std::size_t>(greeting[0]);
}

// Reads the rest to its end, checking every byte.
task<void> check_pattern(tcp_stream& conn, std::size_t size, std::size_t stream) {
  std::vector<std::byte> buf(777);
  std::size_t at = 0;
  for (;;) {
    const std::size_t n = co_await conn.read_some(buf);
    if (n == 0) break;
    for (std::size_t i = 0; i < n; ++i) {
      if (buf[i] != pattern(at + i, stream)) {
        ADD_FAILURE() << "stream " << stream << ": byte " << at + i << " differs";
        co_return;
      }
    }
    at += n;
  }
  EXPECT_EQ(at, size) << "stream " << stream;
}

TEST_P(UnreadData, FarMoreThanIsReadArrivesIntactAndInOrder) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto listener = tcp_listener::bind(loopback_any_port());
    constexpr std::size_t size = 4 << 20;
    auto sender = spawn(send_pattern(listener.local_address(), size, 0));
    auto [conn, peer] = co_await listener.accept();
    EXPECT_EQ(co_await read_greeting(conn), 0U);
    co_await sleep(100ms);  // the sender fills what the reader lets in
    co_await check_pattern(conn, size, 0);
    co_await sender;
  }());
}

TEST_P(UnreadData, ManyConnectionsWithUnreadDataAllArriveIntact) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto listener = tcp_listener::bind(loopback_any_port());
    constexpr std::size_t connections = 200;
    constexpr std::size_t size = 64 << 10;  // 200 x 64 KiB: more than io_uring's buffer ring (4 MiB)
    std::vector<join_handle<void>> senders;
    for (std::size_t i = 0; i < connections; ++i)
      senders.push_back(spawn(send_pattern(listener.local_address(), size, i)));
    std::vector<tcp_stream> accepted;
    std::vector<std::size_t> stream_of;
    for (std::size_t i = 0; i < connections; ++i) {
      auto [conn, peer] = co_await listener.accept();
      stream_of.push_back(co_await read_greeting(conn));
      accepted.push_back(std::move(conn));
    }
    co_await sleep(200ms);  // every sender has written what the kernel and the ring take
    for (std::size_t i = 0; i < connections; ++i) co_await check_pattern(accepted[i], size, stream_of[i]);
    for (auto& s : senders) co_await s;
  }());
}

TEST_P(UnreadData, AListenerClosedWithConnectionsQueuedClosesThem) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    open_first_socket();
    const int before = open_descriptors();
    auto listener = tcp_listener::bind(loopback_any_port());
    // An accept that waits, then loses to a timer: on io_uring the
    // multishot accept runs from here on, and takes what connects.
    auto r = co_await select(listener.accept(), sleep(10ms));
    EXPECT_EQ(r.index(), 1U);
    std::vector<tcp_stream> clients;
    for (int i = 0; i < 5; ++i) clients.push_back(co_await tcp_stream::connect(listener.local_address()));
    co_await sleep(50ms);
    listener.close();
    // Each server end is closed: a connection still in the kernel's queue
    // is reset, one the ring accepted is closed (the end of the stream).
    for (auto& c : clients) {
      try {
        std::byte b[1];
        auto r = co_await select(c.read_some(b), sleep(2s));
        EXPECT_EQ(r.index(), 0U);  // not the timer
        if (r.index() == 0) {
          EXPECT_EQ(std::get<0>(r), 0U);
        }
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), std::errc::connection_reset);
      }
    }
    clients.clear();
    EXPECT_EQ(open_descriptors(), before);
  }());
}

}  // namespace
}  // namespace lanes::net
