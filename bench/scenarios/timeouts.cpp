// timeouts: the request-with-a-deadline shape on several workers. 8 tasks
// each loop on `co_await timeout(10ms, yield_now())`: every step arms a
// timer, gives the worker up, and disarms the timer. ns per step on one
// worker and on two (more only where the budget has the CPUs), and what
// the second worker buys. It measures what workers share when they arm
// timers and wake each other: one timer lock and one searching count made
// two workers slower than one here (docs/benchmarks.md). Peer: Asio, a
// steady_timer armed, a post, the timer cancelled, on as many threads.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include <lanes/budget.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/io/yield.hpp>

#include "asio_peer.hpp"
#include "json_writer.hpp"
#include "scenario.hpp"

namespace lanes::bench {

namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

constexpr int tasks = 8;

double lanes_ns_per_step(unsigned workers, int steps) {
  auto rt = runtime::multi_thread().worker_threads(workers).build();
  rt.block_on([]() -> task<void> { co_return; }());  // workers started
  const auto start = steady::now();
  rt.block_on([](int per_task) -> task<void> {
    std::vector<join_handle<void>> hs;
    for (int t = 0; t < tasks; ++t) {
      hs.push_back(spawn([](int n) -> task<void> {
        for (int i = 0; i < n; ++i) (void)co_await timeout(10ms, yield_now());
      }(per_task)));
    }
    for (auto& h : hs) co_await h;
  }(steps / tasks));
  return std::chrono::duration<double, std::nano>(steady::now() - start).count() / steps;
}

asio::awaitable<void> asio_stepper(int n) {
  auto ex = co_await asio::this_coro::executor;
  asio::steady_timer timer(ex);
  for (int i = 0; i < n; ++i) {
    timer.expires_after(10ms);
    timer.async_wait([](boost::system::error_code) {});
    co_await asio::post(ex, asio::use_awaitable);
    timer.cancel();
  }
}

double asio_ns_per_step(unsigned threads, int steps) {
  asio::io_context ctx(static_cast<int>(threads));
  const auto start = steady::now();
  for (int t = 0; t < tasks; ++t) asio::co_spawn(ctx, asio_stepper(steps / tasks), asio::detached);
  std::vector<std::thread> runners;
  for (unsigned t = 1; t < threads; ++t) runners.emplace_back([&] { ctx.run(); });
  ctx.run();
  for (auto& r : runners) r.join();
  return std::chrono::duration<double, std::nano>(steady::now() - start).count() / steps;
}

}  // namespace

int run_timeouts(const options& opts) {
  const int steps = opts.quick ? 40'000 : 400'000;
  const int rounds = opts.quick ? 1 : 3;
  const unsigned cpus = std::max(1U, budget::detect().cpus.value);
  std::vector<unsigned> counts{1};
  if (cpus >= 2) counts.push_back(2);
  if (cpus > 2) counts.push_back(cpus);
  if (!opts.json) {
    std::printf("timeouts: %d tasks looping on timeout(10ms, yield_now()), %d steps, median of %d runs\n", tasks, steps,
                rounds);
    std::printf("  %8s %14s %14s %8s\n", "workers", "lanes ns/step", "asio ns/step", "ratio");
  }
  tool::json_writer json;
  json.begin_object().field("scenario", "timeouts").field("steps", static_cast<unsigned>(steps)).begin_array("workers");
  double lanes_one = 0, asio_one = 0;
  for (const unsigned n : counts) {
    std::vector<double> l, a;
    for (int r = 0; r < rounds; ++r) {
      l.push_back(run_isolated([&] { return std::vector<double>{lanes_ns_per_step(n, steps)}; })[0]);
      a.push_back(run_isolated([&] { return std::vector<double>{asio_ns_per_step(n, steps)}; })[0]);
    }
    const double lm = median(l), am = median(a);
    if (n == 1) {
      lanes_one = lm;
      asio_one = am;
    }
    if (!opts.json) {
      std::printf("  %8u %14.1f %14.1f %8.2f", n, lm, am, lm / am);
      if (n > 1) std::printf("   speed-up over one worker: lanes %.2fx, asio %.2fx", lanes_one / lm, asio_one / am);
      std::printf("\n");
    }
    json.begin_object()
        .field("workers", n)
        .field("lanes_ns_per_step", lm)
        .field("asio_ns_per_step", am)
        .field("ratio_lanes_over_asio", lm / am)
        .field("lanes_speedup_over_one_worker", lanes_one / lm)
        .field("asio_speedup_over_one_thread", asio_one / am)
        .end_object();
  }
  json.end_array().end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
