// async_fd: readiness through the driver, read/write loops, cancellation
// that consumes no bytes, and clear errors.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

#include <lanes/compose/select.hpp>
#include <lanes/compose/with_cancellation.hpp>
#include <lanes/io/async_fd.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

struct socket_pair {
  int fd[2] = {-1, -1};
  socket_pair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0); }
  ~socket_pair() {
    for (int f : fd) {
      if (f >= 0) ::close(f);
    }
  }
};

std::span<std::byte> bytes(char* p, std::size_t n) { return {reinterpret_cast<std::byte*>(p), n}; }
std::span<const std::byte> bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

class AsyncFdBothFlavors : public ::testing::TestWithParam<bool> {
 protected:
  runtime make() const {
    return GetParam() ? runtime::multi_thread().worker_threads(2).build() : runtime::current_thread().build();
  }
};

TEST_P(AsyncFdBothFlavors, AReaderWaitsForAWriterTaskAndSeesTheEnd) {
  auto rt = make();
  socket_pair sp;
  const std::string got = rt.block_on([](int a, int b) -> task<std::string> {
    async_fd reader(a);
    auto writer = spawn([](int b) -> task<void> {
      async_fd w(b);
      co_await sleep(300us);
      const std::string msg = "hello, lanes";
      auto n = co_await w.write_some(bytes(msg));
      EXPECT_EQ(n.value(), msg.size());
      ::shutdown(b, SHUT_WR);
    }(b));
    std::string all;
    char buf[4];
    for (;;) {
      auto n = co_await reader.read_some(bytes(buf, sizeof buf));
      if (!n || n.value() == 0) break;
      all.append(buf, n.value());
    }
    co_await writer;
    co_return all;
  }(sp.fd[0], sp.fd[1]));
  EXPECT_EQ(got, "hello, lanes");
}

TEST_P(AsyncFdBothFlavors, AReadCancelledWhileWaitingTakesNoBytes) {
  auto rt = make();
  socket_pair sp;
  rt.block_on([](int a, int b) -> task<void> {
    async_fd reader(a);
    cancellation_token token;
    token.cancel();
    char buf[16];
    auto r = co_await with_cancellation(token, reader.read_some(bytes(buf, sizeof buf)));
    EXPECT_FALSE(r.has_value());
    auto lost = co_await select(reader.readable(), sleep(200us));  // nothing to read yet
    EXPECT_EQ(lost.index(), 1U);
    EXPECT_EQ(::write(b, "xyz", 3), 3);
    auto won = co_await select(reader.readable(), sleep(1h));
    EXPECT_EQ(won.index(), 0U);
    auto n = co_await reader.read_some(bytes(buf, sizeof buf));
    EXPECT_EQ(n.value(), 3U);  // the readiness races took nothing
  }(sp.fd[0], sp.fd[1]));
}

TEST_P(AsyncFdBothFlavors, AWriteWaitsForRoomWhenTheSocketIsFull) {
  auto rt = make();
  socket_pair sp;
  const std::size_t total = rt.block_on([](int a, int b) -> task<std::size_t> {
    async_fd w(a);
    const std::string chunk(64 * 1024, 'x');
    std::size_t written = 0;
    // Fill the socket buffer, then let a plain thread drain it.
    std::thread drainer([b] {
      std::this_thread::sleep_for(2ms);
      char buf[65536];
      std::size_t got = 0;
      while (got < 4 * 1024 * 1024) {
        const auto n = ::read(b, buf, sizeof buf);
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
      }
    });
    while (written < 4 * 1024 * 1024) {
      auto n = co_await w.write_some(bytes(chunk));
      if (!n) break;
      written += n.value();
    }
    drainer.join();
    co_return written;
  }(sp.fd[0], sp.fd[1]));
  EXPECT_GE(total, 4U * 1024 * 1024);
}

// One task at a time may wait for each direction. A second waiter that
// took the first one's place in silence would leave the first waiting for
// good, and its cancellation would take the second one's waker with it.
TEST_P(AsyncFdBothFlavors, TwoReadersAtOnceIsAClearError) {
  auto rt = make();
  socket_pair sp;
  rt.block_on([](int fd, int peer) -> task<void> {
    async_fd conn(fd);
    auto wait_readable = [](async_fd& f) -> task<void> { co_await f.readable(); };
    auto first = spawn(wait_readable(conn));
    co_await sleep(5ms);  // the first waits now
    auto second = spawn(wait_readable(conn));
    EXPECT_THROW(co_await second, runtime_misuse);
    EXPECT_EQ(::write(peer, "x", 1), 1);
    co_await first;  // still registered: woken by the byte
  }(sp.fd[0], sp.fd[1]));
}

// A second async_fd for a descriptor that one already watches: epoll's
// bare "File exists" became a misuse that says what to do. The first one
// is untouched and still wakes its reader.
TEST_P(AsyncFdBothFlavors, ASecondAsyncFdForOneDescriptorIsAClearError) {
  auto rt = make();
  socket_pair sp;
  rt.block_on([](int fd, int peer) -> task<void> {
    async_fd conn(fd);
    EXPECT_THROW(async_fd{fd}, runtime_misuse);
    EXPECT_EQ(::write(peer, "x", 1), 1);
    char buf[4];
    auto n = co_await conn.read_some(bytes(buf, sizeof buf));
    EXPECT_EQ(n.value(), 1U);
  }(sp.fd[0], sp.fd[1]));
}

// Destroyed while a task waits on it, an async_fd wakes that task with an
// error (it is deregistered first), instead of leaving it waiting for good
// or letting it touch a descriptor number that may be reused.
TEST_P(AsyncFdBothFlavors, DestroyingItWakesItsWaiterWithAnError) {
  auto rt = make();
  socket_pair sp;
  rt.block_on([](int fd) -> task<void> {
    auto conn = std::make_unique<async_fd>(fd);
    auto waiting = spawn([](async_fd& f) -> task<bool> {
      try {
        co_await f.readable();
      } catch (const std::system_error& e) {
        co_return e.code() == std::errc::operation_canceled;
      }
      co_return false;
    }(*conn));
    co_await sleep(5ms);  // it waits now
    conn.reset();
    EXPECT_TRUE(co_await waiting);
  }(sp.fd[0]));
}

// An async_fd kept past its runtime (in an object that lives longer)
// deregisters into nothing, never into the freed driver.
TEST(AsyncFd, OutlivingItsRuntimeIsSafe) {
  socket_pair sp;
  std::optional<async_fd> kept;
  {
    auto rt = runtime::multi_thread().worker_threads(1).build();
    rt.block_on([](int fd, std::optional<async_fd>& out) -> task<void> {
      out.emplace(fd);
      co_return;
    }(sp.fd[0], kept));
  }
  EXPECT_EQ(kept->fd(), sp.fd[0]);
  // Waiting on it from another runtime's task: a clear error, not a hang.
  auto other = runtime::current_thread().build();
  other.block_on([](async_fd& f) -> task<void> { EXPECT_THROW(co_await f.readable(), std::system_error); }(*kept));
  kept.reset();  // deregisters into the closed table
}

TEST(AsyncFd, ARegularFileOrAPlainThreadIsAClearError) {
  auto rt = runtime::current_thread().build();
  char path[] = "/tmp/lanes_async_fd_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  rt.block_on([](int fd) -> task<void> {
    EXPECT_THROW(async_fd{fd}, std::system_error);  // epoll cannot watch a regular file
    co_return;
  }(fd));
  ::close(fd);
  ::unlink(path);
  EXPECT_THROW(async_fd{0}, runtime_misuse);
}

INSTANTIATE_TEST_SUITE_P(Io, AsyncFdBothFlavors, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "MultiThread" : "CurrentThread"; });

}  // namespace
}  // namespace lanes
