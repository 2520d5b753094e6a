// A server main that drains on SIGTERM: stop accepting, let the requests
// in flight finish within a deadline, then cancel what is left.
//
//   ./build/release/examples/graceful_server            # demo: five requests, then SIGTERM to itself
//   ./build/release/examples/graceful_server --serve    # waits for your Ctrl-C / kill -TERM
//
// The pattern: lanes::signal_set (the signal as an awaitable, no handler
// code of yours), lanes::select between it and accept() (which takes no
// connection when the signal wins), a
// lanes::task_tracker counting the requests in flight, close() + a timeout
// on wait(), then abort_all().
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include <lanes/compose/select.hpp>
#include <lanes/compose/task_tracker.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/signal_set.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/net/tcp_listener.hpp>
#include <lanes/net/tcp_stream.hpp>

#include "line_io.hpp"

using namespace std::chrono_literals;

namespace {

std::atomic<int> finished{0};
std::atomic<int> cancelled{0};

// One request: "work <ms>", answered after that long.
lanes::task<void> serve(lanes::net::tcp_stream conn) {
  struct counter {
    bool answered = false;
    ~counter() { ++(answered ? finished : cancelled); }
  } guard;
  auto request = co_await example::read_line(conn);
  if (!request) co_return;
  co_await lanes::sleep(std::chrono::milliseconds(std::stoi(request->substr(5))));
  co_await conn.write_all("done\n");
  guard.answered = true;
}

// Demo load: requests of 20..200 ms, and one of 5 s that will not make the deadline.
lanes::task<void> clients(lanes::net::socket_address server) {
  for (int ms : {20, 60, 120, 200, 5000}) {
    (void)lanes::spawn([](lanes::net::socket_address to, int work_ms) -> lanes::task<void> {
      auto c = co_await lanes::net::tcp_stream::connect(to);
      co_await c.write_all("work " + std::to_string(work_ms) + "\n");
      (void)co_await example::read_line(c);
    }(server, ms));
  }
  co_return;
}

lanes::task<int> server_main(bool demo) {
  auto listener = lanes::net::tcp_listener::bind(lanes::net::socket_address::parse("127.0.0.1:0"));
  lanes::signal_set stop{SIGINT, SIGTERM};
  lanes::task_tracker tracker;
  std::printf("listening on %s (pid %d)\n", listener.local_address().to_string().c_str(), static_cast<int>(::getpid()));
  std::thread killer;
  if (demo) co_await clients(listener.local_address());
  int accepted = 0;
  int signo = 0;
  while (signo == 0) {
    auto r = co_await lanes::select(stop.recv(), listener.accept());
    if (r.index() == 0) {
      signo = std::get<0>(r);
      break;
    }
    (void)tracker.spawn(serve(std::move(std::get<1>(r).stream)), "request");
    if (demo && ++accepted == 5) {
      killer = std::thread([] {  // stands in for `kill -TERM <pid>`, once all five are in
        std::this_thread::sleep_for(50ms);
        ::raise(SIGTERM);  // to this thread: the handler runs here, the server task wakes
      });
    }
  }
  if (killer.joinable()) killer.join();
  // sigdescr_np, not strsignal: other threads are running, and strsignal may
  // write a shared buffer.
  std::printf("%s: stopped accepting; %zu request(s) in flight, draining for up to 1 s\n", ::sigdescr_np(signo),
              tracker.size());
  tracker.close();
  if (!co_await lanes::timeout(1s, tracker.wait())) {
    std::printf("deadline: cancelling the %zu request(s) left\n", tracker.size());
    tracker.abort_all();
    co_await tracker.wait();
  }
  std::printf("drained: %d answered, %d cancelled\n", finished.load(), cancelled.load());
  co_return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool demo = !(argc > 1 && std::strcmp(argv[1], "--serve") == 0);
  auto rt = lanes::runtime::multi_thread().build();
  return rt.block_on(server_main(demo));
}
