// udp_socket: datagram boundaries kept, truncation visible, connected send/recv.
#include <gtest/gtest.h>

#include <string>
#include <system_error>

#include <lanes/net.hpp>

#include "net_test_support.hpp"

namespace lanes::net {
namespace {

using namespace testing;

class Udp : public NetTest {};
LANES_NET_SUITE(Udp);

TEST_P(Udp, KeepsBoundariesAndShowsTruncation) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto a = udp_socket::bind(socket_address::parse("127.0.0.1:0"));
    auto b = udp_socket::bind(socket_address::parse("127.0.0.1:0"));
    EXPECT_NE(a.local_address().port(), 0);
    EXPECT_EQ(co_await a.send_to(bytes("first"), b.local_address()), 5U);
    EXPECT_EQ(co_await a.send_to(bytes("second, longer"), b.local_address()), 14U);
    EXPECT_EQ(co_await a.send_to(bytes(""), b.local_address()), 0U);
    std::string buf(8, '\0');
    auto d1 = co_await b.recv_from(bytes(buf));
    EXPECT_EQ(d1.size, 5U);
    EXPECT_FALSE(d1.truncated());
    EXPECT_EQ(buf.substr(0, d1.stored), "first");
    EXPECT_EQ(d1.from, a.local_address());
    auto d2 = co_await b.recv_from(bytes(buf));
    EXPECT_EQ(d2.size, 14U);  // the datagram's true length
    EXPECT_EQ(d2.stored, 8U);
    EXPECT_TRUE(d2.truncated());
    EXPECT_EQ(buf, "second, ");
    auto d3 = co_await b.recv_from(bytes(buf));  // the rest of the second is gone: the next datagram
    EXPECT_EQ(d3.size, 0U);
    EXPECT_FALSE(d3.truncated());
  }());
}

TEST_P(Udp, ConnectedSocketsSendAndReceive) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto a = udp_socket::bind(socket_address::parse("127.0.0.1:0"));
    auto b = udp_socket::bind(socket_address::parse("127.0.0.1:0"));
    a.connect(b.local_address());
    b.connect(a.local_address());
    EXPECT_EQ(a.peer_address(), b.local_address());
    auto reply = spawn([](udp_socket& s) -> task<void> {
      std::string buf(64, '\0');
      auto d = co_await s.recv(bytes(buf));
      buf.resize(d.stored);
      co_await s.send(bytes(buf + "!"));
    }(b));
    co_await a.send(bytes("ping"));
    std::string buf(64, '\0');
    auto d = co_await a.recv(bytes(buf));
    EXPECT_EQ(buf.substr(0, d.stored), "ping!");
    co_await reply;
  }());
}

TEST_P(Udp, SendingToAPortNobodyHearsIsReportedOnTheConnectedSocket) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    std::uint16_t port = 0;
    {
      auto gone = udp_socket::bind(socket_address::parse("127.0.0.1:0"));
      port = gone.local_address().port();
    }
    auto a = udp_socket::bind(socket_address::parse("127.0.0.1:0"));
    a.connect(socket_address::ipv4_loopback(port));
    co_await a.send(bytes("anyone?"));
    std::string buf(8, '\0');
    try {
      co_await a.recv(bytes(buf));  // the ICMP port-unreachable comes back as an error
      ADD_FAILURE() << "received";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), std::errc::connection_refused) << e.what();
    }
  }());
}

}  // namespace
}  // namespace lanes::net
