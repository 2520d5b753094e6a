// net::socket_address: every text form parsed and printed back, and bad
// text rejected with a message that names it and what is wrong.
#include <gtest/gtest.h>

#include <string>

#include <lanes/net/socket_address.hpp>

namespace lanes::net {
namespace {

TEST(SocketAddress, TextFormsRoundTrip) {
  for (const char* text :
       {"127.0.0.1:8080", "0.0.0.0:0", "255.255.255.255:65535", "[::1]:443", "[::]:0", "[2001:db8::1]:80",
        "[fe80::1%1]:9", "unix:/run/app.sock", "unix:@lanes-test", "unix:relative/path"}) {
    EXPECT_EQ(socket_address::parse(text).to_string(), text);
  }
}

TEST(SocketAddress, KindsAndPorts) {
  EXPECT_EQ(socket_address::parse("10.1.2.3:77").type(), socket_address::kind::ipv4);
  EXPECT_EQ(socket_address::parse("10.1.2.3:77").port(), 77);
  EXPECT_EQ(socket_address::parse("[::1]:5").type(), socket_address::kind::ipv6);
  EXPECT_EQ(socket_address::parse("unix:/x").type(), socket_address::kind::unix_path);
  EXPECT_EQ(socket_address::parse("unix:@x").type(), socket_address::kind::unix_abstract);
  EXPECT_EQ(socket_address::parse("unix:/x").port(), 0);
  EXPECT_EQ(socket_address().type(), socket_address::kind::none);
  EXPECT_EQ(socket_address::ipv4_loopback(9).to_string(), "127.0.0.1:9");
  EXPECT_EQ(socket_address::ipv6_loopback(9).to_string(), "[::1]:9");
  EXPECT_EQ(socket_address::ipv4_any(1).with_port(2).to_string(), "0.0.0.0:2");
  EXPECT_THROW((void)socket_address::parse("unix:/x").with_port(1), address_error);
}

TEST(SocketAddress, EqualityComparesWhatTheKernelWould) {
  EXPECT_EQ(socket_address::parse("127.0.0.1:1"), socket_address::ipv4_loopback(1));
  EXPECT_NE(socket_address::parse("127.0.0.1:1"), socket_address::ipv4_loopback(2));
  EXPECT_NE(socket_address::parse("unix:/a"), socket_address::parse("unix:@a"));
  EXPECT_EQ(socket_address::parse("unix:@a"), socket_address::unix_abstract("a"));
}

void expect_rejected(const std::string& text, const std::string& why) {
  auto parsed = socket_address::try_parse(text);
  ASSERT_FALSE(parsed) << text;
  EXPECT_NE(parsed.error().find("\"" + text + "\""), std::string::npos) << parsed.error();
  EXPECT_NE(parsed.error().find(why), std::string::npos) << parsed.error();
  try {
    (void)socket_address::parse(text);
    ADD_FAILURE() << text << " parsed";
  } catch (const address_error& e) {
    EXPECT_EQ(std::string(e.what()), parsed.error());
  }
}

TEST(SocketAddress, BadTextSaysWhatIsWrong) {
  expect_rejected("", "empty");
  expect_rejected("127.0.0.1", "missing :port");
  expect_rejected("127.0.0.1:", "port");
  expect_rejected("127.0.0.1:65536", "port");
  expect_rejected("127.0.0.1:80x", "port");
  expect_rejected("127.0.0.1:-1", "port");
  expect_rejected(":80", "no host");
  expect_rejected("localhost:80", "resolve");
  expect_rejected("1.2.3:80", "IPv4");
  expect_rejected("::1:80", "brackets");
  expect_rejected("[::1]", "missing :port");
  expect_rejected("[::1:80", "']'");
  expect_rejected("[::g]:80", "IPv6");
  expect_rejected("[fe80::1%no-such-interface0]:80", "scope");
  expect_rejected("unix:", "no path");
  expect_rejected("unix:/" + std::string(200, 'a'), "at most");
}

}  // namespace
}  // namespace lanes::net
