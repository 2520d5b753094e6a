// S5: the io worker sweep (tools/lanes/shared/io_sweep.hpp), lanes against
// an Asio io_context run by as many threads: 20,000 tasks each run a
// 2,000-step loop then sleep 1 ms; total time for 1, 2, 4, 8, 16 and 64
// workers.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include "asio_peer.hpp"
#include "io_sweep.hpp"
#include "json_writer.hpp"
#include "scenario.hpp"

namespace lanes::bench {

namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

asio::awaitable<void> asio_task() {
  tool::io_sweep_spin(tool::io_sweep_steps);
  asio::steady_timer t(co_await asio::this_coro::executor, 1ms);
  co_await t.async_wait(asio::use_awaitable);
}

double asio_ms(unsigned threads, int tasks) {
  asio::io_context ctx(static_cast<int>(threads));
  const auto start = steady::now();
  for (int i = 0; i < tasks; ++i) asio::co_spawn(ctx, asio_task(), asio::detached);
  std::vector<std::thread> runners;
  for (unsigned t = 1; t < threads; ++t) runners.emplace_back([&] { ctx.run(); });
  ctx.run();
  for (auto& r : runners) r.join();
  return std::chrono::duration<double, std::milli>(steady::now() - start).count();
}

}  // namespace

int run_s5(const options& opts) {
  const auto plan = tool::io_sweep_plan_for(opts.quick);
  if (!opts.json) {
    std::printf("S5: %d tasks of a 2,000-step loop then a 1 ms sleep, median of %d runs\n", plan.tasks, plan.rounds);
    std::printf("  %8s %12s %12s %8s\n", "workers", "lanes ms", "asio ms", "ratio");
  }
  tool::json_writer json;
  json.begin_object().field("scenario", "S5").field("tasks", static_cast<unsigned>(plan.tasks)).begin_array("sweep");
  for (const unsigned n : plan.worker_counts) {
    std::vector<double> l, a;
    for (int r = 0; r < plan.rounds; ++r) {
      l.push_back(run_isolated([&] { return std::vector<double>{tool::io_sweep_ms(n, plan.tasks)}; })[0]);
      a.push_back(run_isolated([&] { return std::vector<double>{asio_ms(n, plan.tasks)}; })[0]);
    }
    const double lm = median(l), am = median(a);
    if (!opts.json) std::printf("  %8u %12.1f %12.1f %8.2f\n", n, lm, am, lm / am);
    json.begin_object()
        .field("workers", n)
        .field("lanes_wall_ms", lm)
        .field("asio_wall_ms", am)
        .field("ratio_lanes_over_asio", lm / am)
        .end_object();
  }
  json.end_array().end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
