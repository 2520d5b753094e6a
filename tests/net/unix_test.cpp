// unix_listener / unix_stream: paths, abstract names, socketpair ends.
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <system_error>

#include <lanes/io/join_handle.hpp>
#include <lanes/net.hpp>

#include "net_test_support.hpp"

namespace lanes::net {
namespace {

using namespace testing;

class Unix : public NetTest {};
LANES_NET_SUITE(Unix);

task<std::string> round_trip(unix_listener& listener) {
  auto server = spawn([](unix_listener& l) -> task<void> {
    auto [conn, peer] = co_await l.accept();
    EXPECT_EQ(peer.type(), socket_address::kind::unix_unnamed);  // the client did not bind
    std::string word(4, '\0');
    co_await conn.read_exact(bytes(word));
    co_await conn.write_all(word + word);
  }(listener));
  auto conn = co_await unix_stream::connect(listener.local_address());
  co_await conn.write_all("ping");
  std::string reply(8, '\0');
  co_await conn.read_exact(bytes(reply));
  co_await server;
  co_return reply;
}

TEST_P(Unix, OnAPath) {
  auto rt = make();
  const std::string path = ::testing::TempDir() + "lanes-net-" + std::to_string(::getpid()) + ".sock";
  ::unlink(path.c_str());
  auto listener = unix_listener::bind(socket_address::unix_path(path));
  EXPECT_EQ(listener.local_address().to_string(), "unix:" + path);
  EXPECT_EQ(rt.block_on(round_trip(listener)), "pingping");
  try {
    (void)unix_listener::bind(socket_address::unix_path(path));  // the file is still there
    ADD_FAILURE() << "bound twice";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::address_in_use);
    EXPECT_EQ(std::string(e.what()), "bind unix:" + path + ": Address already in use");
  }
  ::unlink(path.c_str());
}

TEST_P(Unix, OnAnAbstractName) {
  auto rt = make();
  const std::string name = "lanes-net-" + std::to_string(::getpid());
  auto listener = unix_listener::bind(socket_address::parse("unix:@" + name));
  EXPECT_EQ(listener.local_address().to_string(), "unix:@" + name);
  EXPECT_EQ(rt.block_on(round_trip(listener)), "pingping");
}

TEST_P(Unix, ConnectToNothingNamesTheAddress) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    try {
      co_await unix_stream::connect(socket_address::parse("unix:@lanes-nobody-listens-here"));
      ADD_FAILURE() << "connected";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), std::errc::connection_refused);
      EXPECT_EQ(std::string(e.what()), "connect unix:@lanes-nobody-listens-here: Connection refused");
    }
    EXPECT_THROW(co_await unix_stream::connect(socket_address::parse("127.0.0.1:1")), address_error);
  }());
}

TEST_P(Unix, PairEndsTalk) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto [a, b] = unix_stream::pair();
    co_await a.write_all("over");
    a.shutdown_write();
    std::string got(4, '\0');
    co_await b.read_exact(bytes(got));
    EXPECT_EQ(got, "over");
    std::byte end[1];
    EXPECT_EQ(co_await b.read_some(end), 0U);
  }());
}

}  // namespace
}  // namespace lanes::net
