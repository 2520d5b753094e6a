// A request handler that races its work against the client going away and
// a deadline - and leaves nothing running when it gives up.
//
//   ./build/release/examples/request_handler
//
// A loopback server answers "work <ms>" requests: the work (a task) is
// raced with lanes::select against the client's socket becoming readable
// (a client that hangs up makes it readable, with nothing to read) and a
// 50 ms deadline. The loser branches are cancelled before select returns;
// work that lost is aborted and awaited (finished()), so when the handler
// returns nothing of the request is left running. Three clients show the
// three outcomes.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>

#include <lanes/compose/select.hpp>
#include <lanes/compose/when_all.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/net/tcp_listener.hpp>
#include <lanes/net/tcp_stream.hpp>

#include "line_io.hpp"

using namespace std::chrono_literals;

namespace {

std::atomic<int> work_running{0};

// The request's work: here a stand-in that takes `ms` milliseconds.
lanes::task<std::string> do_work(int ms) {
  ++work_running;
  struct done {
    ~done() { --work_running; }
  } d;
  co_await lanes::sleep(std::chrono::milliseconds(ms));
  co_return "result after " + std::to_string(ms) + " ms";
}

lanes::task<std::string> handle(lanes::net::tcp_stream conn) {
  auto request = co_await example::read_line(conn);
  if (!request) co_return "client left before asking";
  const int ms = std::stoi(request->substr(5));
  const auto deadline = lanes::clock::now() + 50ms;
  auto work = lanes::spawn(do_work(ms), "request work");
  auto r = co_await lanes::select(work, conn.readable(), lanes::sleep_until(deadline));
  std::string outcome;
  switch (r.index()) {
    case 0:
      outcome = "answered: " + std::get<0>(r);
      co_await conn.write_all(std::get<0>(r) + "\n");
      break;
    case 1:  // readable before we answered: the client hung up
      outcome = "client disconnected: work aborted";
      break;
    default:
      outcome = "deadline passed: work aborted, 504 sent";
      co_await conn.write_all("504 deadline\n");
  }
  if (r.index() != 0) {
    work.abort();
    co_await work.finished();  // its cancellation has completed
  }
  co_return outcome;
}

lanes::task<void> client(lanes::net::socket_address server, int ms, bool hang_up_after_ms) {
  auto conn = co_await lanes::net::tcp_stream::connect(server);
  co_await conn.write_all("work " + std::to_string(ms) + "\n");
  if (hang_up_after_ms) {
    co_await lanes::sleep(5ms);
  } else {
    (void)co_await example::read_line(conn);
  }
}

lanes::task<int> serve_three() {
  auto listener = lanes::net::tcp_listener::bind(lanes::net::socket_address::parse("127.0.0.1:0"));
  const auto at = listener.local_address();
  std::vector<lanes::task<void>> clients;
  clients.push_back(client(at, 5, false));     // quick work: answered
  clients.push_back(client(at, 1000, true));   // hangs up after 5 ms
  clients.push_back(client(at, 1000, false));  // slow work: the deadline
  auto all_clients = lanes::spawn(lanes::when_all(std::move(clients)));
  for (int i = 0; i < 3; ++i) {
    auto accepted = co_await listener.accept();
    const std::string outcome = co_await handle(std::move(accepted.stream));
    std::printf("request %d: %s (work tasks still running: %d)\n", i + 1, outcome.c_str(), work_running.load());
  }
  co_await all_clients;
  co_return work_running.load();
}

}  // namespace

int main() {
  auto rt = lanes::runtime::multi_thread().build();
  const int left = rt.block_on(serve_three());
  std::printf("%s\n", left == 0 ? "nothing left running" : "work left running!");
  return left == 0 ? 0 : 1;
}
