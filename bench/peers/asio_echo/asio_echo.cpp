// lanes-asio-echo-peer: Boost.Asio's side of S12 (bench/scenarios/s12_echo.cpp),
// a TCP echo server shaped like lanes-echo (examples/echo_server.cpp): one
// io_context run by one thread, C++20 coroutines (co_spawn, use_awaitable),
// one coroutine per connection with a 16 KiB buffer and TCP_NODELAY. Its
// first line is lanes-echo's, `listening on 127.0.0.1:PORT`; it serves
// until it is killed.
#include <coroutine>
#include <cstdio>
#include <exception>
#include <utility>
#include <vector>

#include <boost/asio.hpp>

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

asio::awaitable<void> echo(tcp::socket conn) {
  conn.set_option(tcp::no_delay(true));
  std::vector<char> buffer(16 * 1024);
  try {
    for (;;) {
      const std::size_t n = co_await conn.async_read_some(asio::buffer(buffer), asio::use_awaitable);
      co_await asio::async_write(conn, asio::buffer(buffer.data(), n), asio::use_awaitable);
    }
  } catch (const std::exception&) {
    // end of stream or a reset: the connection is done
  }
}

asio::awaitable<void> listen(tcp::acceptor& acceptor) {
  auto executor = co_await asio::this_coro::executor;
  for (;;) {
    tcp::socket conn = co_await acceptor.async_accept(asio::use_awaitable);
    asio::co_spawn(executor, echo(std::move(conn)), asio::detached);
  }
}

}  // namespace

int main() {
  try {
    asio::io_context ctx(1);
    tcp::acceptor acceptor(ctx, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    std::printf("listening on 127.0.0.1:%u\n", static_cast<unsigned>(acceptor.local_endpoint().port()));
    std::fflush(stdout);
    asio::co_spawn(ctx, listen(acceptor), asio::detached);
    ctx.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lanes-asio-echo-peer: %s\n", e.what());
    return 1;
  }
}
