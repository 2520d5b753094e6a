// S3: 100,000 io tasks that each sleep 100 ms; time until all are joined,
// and resident memory per task. Peer: as many Asio coroutines on
// steady_timers, on an io_context run by the same number of threads; and,
// where it was built, Tokio with as many workers (bench/peers/tokio). Each
// side runs in its own process (run_isolated; Tokio's is its own program).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include <lanes/budget.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>

#include "asio_peer.hpp"
#include "json_writer.hpp"
#include "rust_peer.hpp"
#include "scenario.hpp"

namespace lanes::bench {

namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

task<void> sleeper() { co_await sleep(100ms); }

// Wall ms, bytes per task; and of the wall time, the ms spent mapping,
// populating and first writing fresh frame memory, and how many MiB of it
// (a fresh process has none: in a virtual machine this cost depends on
// whether the host still backs the pages the guest hands out).
std::vector<double> lanes_side(int tasks, unsigned workers) {
  auto rt = runtime::multi_thread().worker_threads(workers).build();
  rt.block_on([]() -> task<void> { co_return; }());  // workers started and warm
  const auto base = rss_bytes();
  const auto memory_before = rt.metrics().frame_memory;
  const auto start = steady::now();
  rt.block_on([](int n) -> task<void> {
    std::vector<join_handle<void>> handles;
    handles.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) handles.push_back(spawn(sleeper()));
    for (auto& h : handles) co_await h;
  }(tasks));
  const double wall_ms = std::chrono::duration<double, std::milli>(steady::now() - start).count();
  const auto memory = rt.metrics().frame_memory;
  return {wall_ms, static_cast<double>(peak_rss_bytes() - base) / tasks,
          static_cast<double>(memory.populate_ns - memory_before.populate_ns) / 1e6,
          static_cast<double>(memory.mapped_bytes - memory_before.mapped_bytes) / (1 << 20)};
}

asio::awaitable<void> asio_sleeper() {
  asio::steady_timer timer(co_await asio::this_coro::executor, 100ms);
  co_await timer.async_wait(asio::use_awaitable);
}

std::vector<double> asio_side(int tasks, unsigned threads) {
  asio::io_context ctx(static_cast<int>(threads));
  const auto base = rss_bytes();
  const auto start = steady::now();
  for (int i = 0; i < tasks; ++i) asio::co_spawn(ctx, asio_sleeper(), asio::detached);
  std::vector<std::thread> runners;
  for (unsigned t = 1; t < threads; ++t) runners.emplace_back([&] { ctx.run(); });
  ctx.run();
  for (auto& r : runners) r.join();
  const double wall_ms = std::chrono::duration<double, std::milli>(steady::now() - start).count();
  return {wall_ms, static_cast<double>(peak_rss_bytes() - base) / tasks};
}

}  // namespace

int run_s3(const options& opts) {
  const int tasks = opts.quick ? 10'000 : 100'000;
  const int rounds = opts.quick ? 1 : 3;
  const unsigned workers = budget::detect().io_threads.value;
  std::vector<double> lanes_ms, lanes_bytes, lanes_populate_ms, lanes_fresh_mib, asio_ms, asio_bytes, tokio_ms,
      tokio_bytes;
  rust_peer_side tokio(rust_peer::tokio);
  for (int r = 0; r < rounds; ++r) {
    const auto l = run_isolated([&] { return lanes_side(tasks, workers); });
    const auto a = run_isolated([&] { return asio_side(tasks, workers); });
    lanes_ms.push_back(l[0]);
    lanes_bytes.push_back(l[1]);
    lanes_populate_ms.push_back(l[2]);
    lanes_fresh_mib.push_back(l[3]);
    asio_ms.push_back(a[0]);
    asio_bytes.push_back(a[1]);
    if (const auto t = tokio.run({"s3", std::to_string(workers), std::to_string(tasks)}, 2)) {
      tokio_ms.push_back((*t)[0]);
      tokio_bytes.push_back((*t)[1]);
    }
  }
  const double lm = median(lanes_ms), lb = median(lanes_bytes), am = median(asio_ms), ab = median(asio_bytes);
  const double tm = median(tokio_ms), tb = median(tokio_bytes);
  const double lp = median(lanes_populate_ms), lf = median(lanes_fresh_mib);
  if (!opts.json) {
    std::printf("S3: %d tasks sleeping 100 ms, %u io thread(s), median of %d runs\n", tasks, workers, rounds);
    std::printf("  %-22s %12s %16s\n", "", "wall ms", "bytes per task");
    std::printf("  %-22s %12.1f %16.0f\n", "lanes", lm, lb);
    std::printf("  %-22s %12.1f %16s  (%.1f MiB of fresh frame memory mapped, populated and written)\n",
                "  of which populating", lp, "", lf);
    std::printf("  %-22s %12.1f %16.0f\n", "Boost.Asio coroutines", am, ab);
    std::printf("  %-22s %12.2f %16.2f\n", "lanes / asio", lm / am, lb / ab);
    if (tokio.present()) {
      std::printf("  %-22s %12.1f %16.0f\n", tokio.title().c_str(), tm, tb);
      std::printf("  %-22s %12.2f %16.2f\n", "lanes / tokio", lm / tm, lb / tb);
    }
  }
  tool::json_writer json;
  json.begin_object()
      .field("scenario", "S3")
      .field("tasks", static_cast<unsigned>(tasks))
      .field("io_threads", workers)
      .field("runs", static_cast<unsigned>(rounds))
      .field("lanes_wall_ms", lm)
      .field("lanes_bytes_per_task", lb)
      .field("lanes_populate_ms", lp)
      .field("lanes_fresh_frame_mib", lf)
      .field("asio_wall_ms", am)
      .field("asio_bytes_per_task", ab)
      .field("wall_ratio_lanes_over_asio", lm / am)
      .field("bytes_ratio_lanes_over_asio", lb / ab);
  if (tokio.present()) {
    json.field("tokio", tokio.title())
        .field("tokio_wall_ms", tm)
        .field("tokio_bytes_per_task", tb)
        .field("wall_ratio_lanes_over_tokio", lm / tm)
        .field("bytes_ratio_lanes_over_tokio", lb / tb);
  } else {
    json.null_field("tokio_wall_ms");
  }
  json.end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
