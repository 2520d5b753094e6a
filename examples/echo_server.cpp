// lanes-echo: a TCP echo server on 127.0.0.1 - every byte a client sends
// comes back to it. The server of `lanes bench s12`, and the smallest
// complete service built on lanes::net.
//
//   lanes-echo [--port P] [--backend epoll|uring|auto] [--workers N]
//
// Contract (scripts rely on it): the first line on stdout, flushed, is
// exactly `listening on 127.0.0.1:PORT` (with the port the kernel chose
// for --port 0); SIGTERM or SIGINT closes every connection and exits 0.
//
// One task per connection, reading into a 16 KiB buffer and writing back
// what it read; a task_tracker holds them so that shutdown can cancel and
// await them all. Accepting races the signal in one select: accept() takes
// no connection when the signal wins.
#include <signal.h>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <lanes/compose/select.hpp>
#include <lanes/compose/task_tracker.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/signal_set.hpp>
#include <lanes/net/tcp_listener.hpp>

namespace {

lanes::task<void> echo(lanes::net::tcp_stream conn) {
  conn.set_nodelay(true);
  std::vector<std::byte> buffer(16 * 1024);
  try {
    for (;;) {
      const std::size_t n = co_await conn.read_some(buffer);
      if (n == 0) co_return;  // the client closed its side
      co_await conn.write_all(std::span(buffer).first(n));
    }
  } catch (const std::system_error&) {
    // The client reset the connection: nothing to echo to.
  }
}

lanes::task<int> serve(std::uint16_t port) {
  lanes::signal_set stop{SIGINT, SIGTERM};  // before the first line: a signal after it is ours
  auto listener = lanes::net::tcp_listener::bind(lanes::net::socket_address::ipv4_loopback(port));
  std::printf("listening on %s\n", listener.local_address().to_string().c_str());
  std::fflush(stdout);
  lanes::task_tracker connections;
  for (;;) {
    auto r = co_await lanes::select(stop.recv(), listener.accept());
    if (r.index() == 0) break;
    (void)connections.spawn(echo(std::move(std::get<1>(r).stream)), "echo connection");
  }
  listener.close();
  connections.close();
  connections.abort_all();  // each connection's stream closes as its task ends
  co_await connections.wait();
  co_return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"lanes-echo: a TCP echo server on 127.0.0.1"};
  unsigned port = 0;
  unsigned workers = 0;
  std::string backend = "auto";
  app.add_option("--port", port, "port to listen on (0: any free port)")->check(CLI::Range(0U, 65535U));
  app.add_option("--backend", backend, "io backend: epoll, uring, or auto (default; LANES_IO_BACKEND)")
      ->check(CLI::IsMember({"epoll", "uring", "auto"}));
  app.add_option("--workers", workers, "io worker threads (default: the CPU budget's io_threads)")
      ->check(CLI::Range(1U, 1024U));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    auto builder = lanes::runtime::multi_thread();
    if (workers != 0) builder.worker_threads(workers);
    builder.io_backend(lanes::parse_io_backend(backend, "--backend"));
    auto rt = builder.build();
    return rt.block_on(serve(static_cast<std::uint16_t>(port)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lanes-echo: %s\n", e.what());
    return 1;
  }
}
