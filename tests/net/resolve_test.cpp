// net::resolve: numeric hosts never reach the resolver; names do, on the
// blocking lane; failures name the host.
#include <gtest/gtest.h>

#include <string>
#include <system_error>

#include <lanes/net.hpp>

#include "net_test_support.hpp"

namespace lanes::net {
namespace {

using namespace testing;

class Resolve : public NetTest {};
LANES_NET_SUITE(Resolve);

TEST_P(Resolve, NumericHostsComeBackAsTheyAre) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto v4 = co_await resolve("127.0.0.1", 80);
    EXPECT_EQ(v4.size(), 1U);
    EXPECT_EQ(v4.front().to_string(), "127.0.0.1:80");
    auto v6 = co_await resolve("::1", 443);
    EXPECT_EQ(v6.size(), 1U);
    EXPECT_EQ(v6.front().to_string(), "[::1]:443");
    auto bracketed = co_await resolve("[::1]", 443);
    EXPECT_EQ(bracketed.front(), v6.front());
  }());
}

TEST_P(Resolve, LocalhostResolvesToALoopbackAddress) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto found = co_await resolve("localhost", 8080);  // /etc/hosts: no network needed
    EXPECT_FALSE(found.empty());
    for (const auto& a : found) {
      EXPECT_TRUE(a.is_ip());
      EXPECT_EQ(a.port(), 8080);
      EXPECT_TRUE(a.to_string() == "127.0.0.1:8080" || a.to_string() == "[::1]:8080") << a.to_string();
    }
  }());
}

TEST_P(Resolve, AnUnknownNameIsAnErrorNamingIt) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    try {
      co_await resolve("no-such-host.invalid", 80);  // .invalid never resolves (RFC 6761)
      ADD_FAILURE() << "resolved";
    } catch (const std::system_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("resolve no-such-host.invalid: ", 0), 0U) << e.what();
    }
  }());
}

}  // namespace
}  // namespace lanes::net
