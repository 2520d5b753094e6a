// tcp_listener / tcp_stream: echo with partial reads and writes, half
// close, errors that name the operation and the address, options, split,
// and descriptors returned after many connections.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include <lanes/compose/when_all.hpp>
#include <lanes/io/join_handle.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/net.hpp>

#include "net_test_support.hpp"

namespace lanes::net {
namespace {

using namespace std::chrono_literals;
using namespace testing;

class Tcp : public NetTest {};
LANES_NET_SUITE(Tcp);

// A send buffer of a few KiB, so writes are partial and wait for room.
// Only the send side: a receive buffer that small stalls loopback TCP in
// the kernel itself (window updates then wait for the persist timer),
// with blocking sockets as well. Partial reads come from the readers'
// small buffers.
void small_buffers(int fd) {
  const int size = 4096;
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
}

task<void> echo_until_end(tcp_stream conn) {
  small_buffers(conn.native_handle());
  std::vector<std::byte> buf(1000);
  for (;;) {
    const std::size_t n = co_await conn.read_some(buf);
    if (n == 0) break;
    co_await conn.write_all(std::span(buf).first(n));
  }
  conn.shutdown_write();
}

TEST_P(Tcp, EchoesRandomSizesThroughSmallBuffersOnManyConnections) {
  auto rt = make();
  const int checked = rt.block_on([]() -> task<int> {
    auto listener = tcp_listener::bind(loopback_any_port());
    const auto address = listener.local_address();
    constexpr int connections = 24;
    auto server = spawn([](tcp_listener& l) -> task<void> {
      std::vector<join_handle<void>> echoes;
      for (int i = 0; i < connections; ++i) {
        auto [conn, peer] = co_await l.accept();
        EXPECT_EQ(peer, conn.peer_address());
        echoes.push_back(spawn(echo_until_end(std::move(conn))));
      }
      for (auto& e : echoes) co_await e;
    }(listener));
    std::vector<join_handle<int>> clients;
    for (int c = 0; c < connections; ++c) {
      clients.push_back(spawn([](socket_address to, int seed) -> task<int> {
        auto conn = co_await tcp_stream::connect(to);
        small_buffers(conn.native_handle());
        std::mt19937 rng(static_cast<unsigned>(seed));
        std::string sent(std::uniform_int_distribution<std::size_t>(1, 200'000)(rng), '\0');
        for (auto& ch : sent) ch = static_cast<char>(rng());
        auto [reader, writer] = conn.split();
        auto writing = spawn([](stream_socket::write_half w, std::string& data) -> task<void> {
          co_await w.write_all(bytes(data));
          w.shutdown_write();
        }(writer, sent));
        std::string got;
        std::vector<std::byte> buf(std::uniform_int_distribution<std::size_t>(1, 3000)(rng));
        for (;;) {
          const std::size_t n = co_await reader.read_some(buf);
          if (n == 0) break;
          got += text(std::span(buf).first(n));
        }
        co_await writing;
        EXPECT_EQ(got.size(), sent.size());
        EXPECT_TRUE(got == sent);
        co_return got == sent ? 1 : 0;
      }(address, c)));
    }
    int ok = 0;
    for (auto& c : clients) ok += co_await c;
    co_await server;
    co_return ok;
  }());
  EXPECT_EQ(checked, 24);
}

TEST_P(Tcp, HalfCloseLetsThePeerFinishWriting) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto listener = tcp_listener::bind(loopback_any_port());
    auto server = spawn([](tcp_listener& l) -> task<void> {
      auto [conn, peer] = co_await l.accept();
      std::string request(5, '\0');
      co_await conn.read_exact(bytes(request));
      EXPECT_EQ(request, "hello");
      std::byte extra[1];
      EXPECT_EQ(co_await conn.read_some(extra), 0U);  // the client shut its write side
      co_await conn.write_all("still here");          // ... and still reads
    }(listener));
    auto conn = co_await tcp_stream::connect(listener.local_address());
    co_await conn.write_all("hello");
    conn.shutdown_write();
    std::string reply(10, '\0');
    co_await conn.read_exact(bytes(reply));
    EXPECT_EQ(reply, "still here");
    co_await server;
    std::string more(1, '\0');
    try {
      co_await conn.read_exact(bytes(more));
      ADD_FAILURE() << "read past the end";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), errc::end_of_stream);
      EXPECT_NE(std::string(e.what()).find("read 127.0.0.1:"), std::string::npos) << e.what();
    }
  }());
}

// A read shorter than its buffer marks the stream drained (the next read
// waits for the driver instead of asking); an end of stream that arrived
// with the data must still be seen, at once, by that next read.
TEST_P(Tcp, AShortReadJustBeforeTheEndOfStreamStillSeesTheEnd) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto listener = tcp_listener::bind(loopback_any_port());
    for (int round = 0; round < 200; ++round) {
      auto conn = co_await tcp_stream::connect(listener.local_address());
      auto [server_side, peer] = co_await listener.accept();
      co_await conn.write_all("last words");
      conn.shutdown_write();
      co_await sleep(std::chrono::microseconds(round % 3 * 50));  // data and end of stream both queued, sometimes
      std::string buf(64, '\0');
      std::size_t got = 0;
      for (;;) {
        const std::size_t n = co_await server_side.read_some(bytes(buf));
        if (n == 0) break;
        got += n;
      }
      EXPECT_EQ(got, 10U);
    }
  }());
}

TEST_P(Tcp, ConnectRefusedNamesTheAddress) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    // A port nobody listens on: bind one, read it, close it.
    std::uint16_t port = 0;
    {
      auto l = tcp_listener::bind(loopback_any_port());
      port = l.local_address().port();
    }
    try {
      co_await tcp_stream::connect(socket_address::ipv4_loopback(port));
      ADD_FAILURE() << "connected";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), std::errc::connection_refused);
      EXPECT_EQ(std::string(e.what()), "connect 127.0.0.1:" + std::to_string(port) + ": Connection refused");
    }
  }());
}

TEST_P(Tcp, ConnectTimesOutAgainstAFullBacklogAndClosesItsSocket) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    // A listener that never accepts, its queue filled: further SYNs are dropped.
    auto listener = tcp_listener::bind(loopback_any_port(), {.backlog = 0});
    std::vector<tcp_stream> fillers;
    open_first_socket();
    const int before = open_descriptors();
    bool timed_out_once = false;
    for (int i = 0; i < 8 && !timed_out_once; ++i) {
      auto r = co_await timeout(200ms, tcp_stream::connect(listener.local_address()));
      if (r) {
        fillers.push_back(std::move(r.value()));
      } else {
        timed_out_once = true;
      }
    }
    EXPECT_TRUE(timed_out_once);
    EXPECT_EQ(open_descriptors(), before + static_cast<int>(fillers.size()));  // the timed-out socket is closed
  }());
}

TEST_P(Tcp, APeerThatResetsMidWriteIsAnErrorNotASignal) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto listener = tcp_listener::bind(loopback_any_port());
    auto conn = co_await tcp_stream::connect(listener.local_address());
    {
      auto [peer_conn, peer] = co_await listener.accept();
      const linger abort_on_close{1, 0};  // close sends RST
      ::setsockopt(peer_conn.native_handle(), SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
    }
    const std::string chunk(64 * 1024, 'x');
    try {
      for (int i = 0; i < 1000; ++i) co_await conn.write_all(chunk);
      ADD_FAILURE() << "64 MB written to a reset connection";
    } catch (const std::system_error& e) {
      EXPECT_TRUE(e.code() == std::errc::connection_reset || e.code() == std::errc::broken_pipe) << e.what();
      EXPECT_NE(std::string(e.what()).find("write 127.0.0.1:"), std::string::npos) << e.what();
    }
  }());
}

TEST_P(Tcp, ClosingAListenerWakesItsAcceptWithAnError) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto listener = tcp_listener::bind(loopback_any_port());
    auto accepting = spawn([](tcp_listener& l) -> task<std::string> {
      try {
        co_await l.accept();
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), std::errc::operation_canceled);
        co_return "cancelled";
      }
      co_return "accepted";
    }(listener));
    co_await sleep(5ms);
    listener.close();
    EXPECT_EQ(co_await accepting, "cancelled");
  }());
}

TEST_P(Tcp, DestroyingAStreamWakesItsReaderWithAnError) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto listener = tcp_listener::bind(loopback_any_port());
    auto conn = std::make_unique<tcp_stream>(co_await tcp_stream::connect(listener.local_address()));
    auto [peer_conn, peer] = co_await listener.accept();
    auto reading = spawn([](tcp_stream& c) -> task<bool> {
      std::byte buf[16];
      try {
        co_await c.read_some(buf);
      } catch (const std::system_error& e) {
        co_return e.code() == std::errc::operation_canceled;
      }
      co_return false;
    }(*conn));
    co_await sleep(5ms);
    conn.reset();
    EXPECT_TRUE(co_await reading);
  }());
}

TEST_P(Tcp, OptionsAndAddresses) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto listener = tcp_listener::bind(loopback_any_port());
    EXPECT_NE(listener.local_address().port(), 0);
    auto conn = co_await tcp_stream::connect(listener.local_address());
    auto [server_side, peer] = co_await listener.accept();
    EXPECT_EQ(conn.peer_address(), listener.local_address());
    EXPECT_EQ(conn.local_address(), peer);
    EXPECT_FALSE(conn.nodelay());
    conn.set_nodelay(true);
    EXPECT_TRUE(conn.nodelay());
    conn.set_keepalive(true);
    EXPECT_TRUE(conn.keepalive());
    // Vectored: three buffers arrive as one stream.
    const std::string a = "one ", b, c = "three";
    const std::span<const std::byte> parts[] = {bytes(a), bytes(b), bytes(c)};
    co_await conn.write_all(parts);
    std::string got(9, '\0');
    co_await server_side.read_exact(bytes(got));
    EXPECT_EQ(got, "one three");
  }());
}

TEST_P(Tcp, BindingAnAddressInUseNamesIt) {
  auto rt = make();
  auto first = tcp_listener::bind(loopback_any_port());
  try {
    (void)tcp_listener::bind(first.local_address(), {.reuse_address = false});
    ADD_FAILURE() << "bound twice";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::address_in_use);
    EXPECT_EQ(std::string(e.what()), "bind " + first.local_address().to_string() + ": Address already in use");
  }
  EXPECT_THROW((void)tcp_listener::bind(socket_address::parse("unix:@x")), address_error);
}

TEST_P(Tcp, TenThousandConnectionsReturnEveryDescriptor) {
  auto rt = make();
  int before = 0;
  rt.block_on([&before]() -> task<void> {
    open_first_socket();
    before = open_descriptors();
    auto listener = tcp_listener::bind(loopback_any_port());
    constexpr int total = 10'000;
    auto server = spawn([](tcp_listener& l) -> task<void> {
      for (int i = 0; i < total; ++i) {
        auto [conn, peer] = co_await l.accept();
        std::byte b[1];
        EXPECT_EQ(co_await conn.read_some(b), 0U);
      }
    }(listener));
    for (int i = 0; i < total; ++i) {
      auto conn = co_await tcp_stream::connect(listener.local_address());
      conn.shutdown_write();
    }
    co_await server;
  }());
  EXPECT_EQ(open_descriptors(), before);
}

}  // namespace
}  // namespace lanes::net
