// Timer precision: how late a sleep wakes past its deadline (the io
// issue's goal: p99 within 100 us). 2,000 sleeps of 200 us to 2 ms, one at
// a time, on an idle runtime; then again with sockets in the mix - four
// Unix stream pairs ping-ponging 64 B messages on the same one-worker
// runtime - on each io backend. Peer: asio::steady_timer, idle, the same way.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include <lanes/config_error.hpp>
#include <lanes/io/io_backend.hpp>
#include <lanes/io/join_handle.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/net/unix_stream.hpp>

#include "asio_peer.hpp"
#include "json_writer.hpp"
#include "scenario.hpp"

namespace lanes::bench {

namespace {

using steady = std::chrono::steady_clock;

std::vector<std::chrono::microseconds> durations(int n) {
  std::mt19937 rng(7);
  std::vector<std::chrono::microseconds> out;
  for (int i = 0; i < n; ++i) out.emplace_back(200 + static_cast<int>(rng() % 1800));
  return out;
}

double late_us(steady::time_point deadline) {
  return std::chrono::duration<double, std::micro>(steady::now() - deadline).count();
}

std::vector<double> percentiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) { return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))]; };
  return {at(0.5), at(0.99), v.back()};
}

// The traffic beside the sleeps: one end sends and waits for the echo
// until told to stop, then closes its side; the other echoes until then.
task<void> ping(net::unix_stream conn, const std::atomic<bool>& stop) {
  std::byte message[64] = {};
  while (!stop.load(std::memory_order_relaxed)) {
    co_await conn.write_all(message);
    co_await conn.read_exact(message);
  }
  conn.shutdown_write();
}

task<void> echo(net::unix_stream conn) {
  std::byte message[64];
  for (;;) {
    const std::size_t n = co_await conn.read_some(message);
    if (n == 0) co_return;
    co_await conn.write_all(std::span(message, n));
  }
}

task<std::vector<double>> measure_sleeps(int count, bool with_sockets) {
  std::atomic<bool> stop{false};
  std::vector<join_handle<void>> traffic;
  for (int i = 0; with_sockets && i < 4; ++i) {
    auto [a, b] = net::unix_stream::pair();
    traffic.push_back(spawn(ping(std::move(a), stop)));
    traffic.push_back(spawn(echo(std::move(b))));
  }
  std::vector<double> lateness;
  for (const auto d : durations(count)) {
    const auto deadline = steady::now() + d;
    co_await sleep_until(deadline);
    lateness.push_back(late_us(deadline));
  }
  stop.store(true, std::memory_order_relaxed);
  for (auto& t : traffic) co_await t;
  co_return lateness;
}

// `sockets`: the backend of the runtime, with the traffic; none: idle.
std::vector<double> lanes_side(int n, std::optional<io_backend> sockets) {
  auto builder = runtime::multi_thread().worker_threads(1);
  if (sockets) builder.io_backend(*sockets);
  auto rt = builder.build();
  return percentiles(rt.block_on(measure_sleeps(n, sockets.has_value())));
}

std::vector<double> asio_side(int n) {
  asio::io_context ctx(1);
  std::vector<double> lateness;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        asio::steady_timer timer(co_await asio::this_coro::executor);
        for (const auto d : durations(n)) {
          const auto deadline = steady::now() + d;
          timer.expires_at(deadline);
          co_await timer.async_wait(asio::use_awaitable);
          lateness.push_back(late_us(deadline));
        }
      },
      asio::detached);
  ctx.run();
  return percentiles(lateness);
}

}  // namespace

int run_timer_latency(const options& opts) {
  const int n = opts.quick ? 200 : 2000;
  const auto l = run_isolated([&] { return lanes_side(n, std::nullopt); });
  const auto a = run_isolated([&] { return asio_side(n); });
  const auto with_epoll = run_isolated([&] { return lanes_side(n, io_backend::epoll); });
  // io_uring where it runs here (else the row is left out, saying why).
  std::optional<std::vector<double>> with_uring;
  try {
    (void)choose_io_backend(io_backend::uring);
    with_uring = run_isolated([&] { return lanes_side(n, io_backend::uring); });
  } catch (const config_error& e) {
    std::fprintf(stderr, "(timers: no io_uring row: %s)\n", e.what());
  }
  if (!opts.json) {
    std::printf("timers: lateness of %d sleeps of 0.2-2 ms (1 io thread)\n", n);
    std::printf("  %-28s %10s %10s %10s\n", "", "p50 us", "p99 us", "max us");
    auto line = [](const char* name, const std::vector<double>& v) {
      std::printf("  %-28s %10.1f %10.1f %10.1f\n", name, v[0], v[1], v[2]);
    };
    line("lanes, idle", l);
    line("asio, idle", a);
    line("lanes + 4 socket pairs, epoll", with_epoll);
    if (with_uring) line("lanes + 4 socket pairs, uring", *with_uring);
  }
  tool::json_writer json;
  json.begin_object()
      .field("scenario", "timers")
      .field("sleeps", static_cast<unsigned>(n))
      .field("lanes_p50_us", l[0])
      .field("lanes_p99_us", l[1])
      .field("lanes_max_us", l[2])
      .field("asio_p50_us", a[0])
      .field("asio_p99_us", a[1])
      .field("asio_max_us", a[2])
      .field("lanes_sockets_epoll_p50_us", with_epoll[0])
      .field("lanes_sockets_epoll_p99_us", with_epoll[1])
      .field("lanes_sockets_epoll_max_us", with_epoll[2]);
  if (with_uring) {
    json.field("lanes_sockets_uring_p50_us", (*with_uring)[0])
        .field("lanes_sockets_uring_p99_us", (*with_uring)[1])
        .field("lanes_sockets_uring_max_us", (*with_uring)[2]);
  } else {
    json.null_field("lanes_sockets_uring_p99_us");
  }
  json.end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
