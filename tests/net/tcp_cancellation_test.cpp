// Cancellation of socket operations loses nothing: a read that loses a
// select (or a timeout) has consumed no byte, an accept that times out has
// taken no connection; and the cooperative budget covers socket calls.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include <lanes/compose/select.hpp>
#include <lanes/io/join_handle.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/io/yield.hpp>
#include <lanes/net.hpp>

#include "net_test_support.hpp"

namespace lanes::net {
namespace {

using namespace std::chrono_literals;
using namespace testing;

class TcpCancellation : public NetTest {};
LANES_NET_SUITE(TcpCancellation);

TEST_P(TcpCancellation, AReadRacingATimerLosesNoByteOverThousandsOfRounds) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto listener = tcp_listener::bind(socket_address::parse("127.0.0.1:0"));
    auto conn = co_await tcp_stream::connect(listener.local_address());
    auto [server_side, peer] = co_await listener.accept();
    constexpr std::size_t total = 20'000;
    // The writer sends 0, 1, 2, ... (mod 251) in bursts with pauses, so
    // that reads and timer firings interleave every way.
    auto writer = spawn([](tcp_stream& s) -> task<void> {
      std::string chunk;
      std::size_t sent = 0;
      unsigned burst = 1;
      while (sent < total) {
        chunk.clear();
        for (unsigned i = 0; i < burst && sent < total; ++i, ++sent) chunk.push_back(static_cast<char>(sent % 251));
        co_await s.write_all(chunk);
        burst = burst % 13 + 1;
        if (sent % 7 == 0) co_await sleep(20us);
        if (sent % 5 == 0) co_await yield_now();
      }
      s.shutdown_write();
    }(server_side));
    std::size_t received = 0;
    int timer_wins = 0;
    int read_wins = 0;
    std::byte buf[7];
    for (;;) {
      auto r = co_await select(conn.read_some(buf), sleep(std::chrono::microseconds(received % 3 * 10)));
      if (r.index() == 1) {
        ++timer_wins;
        continue;
      }
      ++read_wins;
      const std::size_t n = std::get<0>(r);
      if (n == 0) break;
      for (std::size_t i = 0; i < n; ++i, ++received) {
        if (static_cast<unsigned char>(buf[i]) != received % 251) {
          ADD_FAILURE() << "byte " << received << " is wrong: one was lost or reordered";
          co_return;
        }
      }
    }
    co_await writer;
    EXPECT_EQ(received, total);
    EXPECT_GT(timer_wins, 100);  // the race was really run both ways
    EXPECT_GT(read_wins, 100);
  }());
}

TEST_P(TcpCancellation, AnAcceptThatTimesOutTakesNoConnection) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto listener = tcp_listener::bind(socket_address::parse("127.0.0.1:0"));
    constexpr int total = 200;
    auto clients = spawn([](socket_address to) -> task<void> {
      for (int i = 0; i < total; ++i) {
        auto c = co_await tcp_stream::connect(to);
        const char tag = static_cast<char>(i);
        co_await c.write_all(std::string_view(&tag, 1));
        if (i % 3 == 0) co_await sleep(50us);
        std::byte end[1];
        co_await c.read_some(end);  // until the server closes its side
      }
    }(listener.local_address()));
    int accepted = 0;
    int timeouts = 0;
    while (accepted < total) {
      auto r = co_await timeout(std::chrono::microseconds(accepted % 4 * 15), listener.accept());
      if (!r) {
        ++timeouts;
        continue;
      }
      auto& conn = r.value().stream;
      std::byte tag[1];
      co_await conn.read_exact(tag);
      EXPECT_EQ(static_cast<unsigned char>(tag[0]), static_cast<unsigned char>(accepted)) << "a connection was lost";
      ++accepted;
    }
    co_await clients;
    EXPECT_GT(timeouts, 10);
  }());
}

TEST(TcpCoopBudget, AConnectionThatAlwaysHasDataDoesNotStarveItsWorker) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    auto listener = tcp_listener::bind(socket_address::parse("127.0.0.1:0"));
    auto conn = co_await tcp_stream::connect(listener.local_address());
    auto [server_side, peer] = co_await listener.accept();
    co_await server_side.write_all(std::string(200'000, 'z'));  // queued in the kernel: every read is ready
    std::atomic<std::size_t> read_when_other_ran{0};
    std::size_t read = 0;
    auto other = spawn([](std::atomic<std::size_t>& mark, std::size_t& progress) -> task<void> {
      mark = progress + 1;  // ran while the reader still had data
      co_return;
    }(read_when_other_ran, read));
    std::byte one[1];
    while (read < 200'000) read += co_await conn.read_some(one);
    co_await other;
    EXPECT_GT(read_when_other_ran.load(), 0U);
    EXPECT_LT(read_when_other_ran.load(), 1000U);  // within a few budgets, not after all 200,000 reads
  }());
}

}  // namespace
}  // namespace lanes::net
