// S1 and S2 on lanes (see s1_lanes.hpp).
#include "s1_lanes.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include <lanes/bridge/gate.hpp>
#include <lanes/bridge/offload.hpp>
#include <lanes/compute/indices.hpp>
#include <lanes/compute/reduce.hpp>
#include <lanes/compute/spawn.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/sync/semaphore.hpp>

#include "measure.hpp"

namespace lanes::tool {

__attribute__((noinline)) std::uint64_t s1_f(std::uint64_t x) {
  std::uint64_t a = x;
  for (std::uint64_t i = 0; i < 20000; ++i) a = a * 6364136223846793005ULL + i;
  return a;
}

namespace {

using steady = std::chrono::steady_clock;

// Σ f(x) over the batch, split across the pool the caller is in.
std::uint64_t evaluate(std::size_t batch) {
  return compute::transform_reduce(compute::indices(batch), std::uint64_t{0}, std::plus<>{}, s1_f);
}

task<std::uint64_t> request(system& sys, s1_mode mode, std::size_t batch, semaphore& permits, gate& cpu) {
  switch (mode) {
    case s1_mode::inline_on_io:
      // On the io worker: install blocks it until the pool is done.
      co_return sys.compute().install([batch] { return evaluate(batch); });
    case s1_mode::offloaded: {
      auto permit = co_await permits.acquire();
      co_return co_await offload(sys.compute(), [batch] { return evaluate(batch); });
    }
    case s1_mode::gate:
      co_return co_await cpu.run([batch] { return evaluate(batch); });
  }
  co_return 0;
}

task<std::vector<s1_tick>> ticker(std::chrono::milliseconds period, std::atomic<bool>& stop,
                                  steady::time_point started) {
  std::vector<s1_tick> ticks;
  auto next = started;
  while (!stop.load(std::memory_order_relaxed)) {
    next += period;
    co_await sleep_until(next);
    const auto now = steady::now();
    ticks.push_back({std::chrono::duration<double, std::milli>(now - started).count(),
                     std::chrono::duration<double, std::micro>(now - next).count()});
  }
  co_return ticks;
}

}  // namespace

const char* to_string(s1_mode m) noexcept {
  switch (m) {
    case s1_mode::inline_on_io:
      return "inline";
    case s1_mode::offloaded:
      return "offloaded";
    case s1_mode::gate:
      return "gate";
  }
  return "?";
}

s1_result run_s1_mode(system& sys, s1_mode mode, const s1_config& config) {
  semaphore permits(config.permits);
  gate cpu(sys.compute(), config.permits);
  s1_result out;
  out.mode = mode;
  sys.block_on([](system& sys, s1_mode mode, const s1_config& config, semaphore& permits, gate& cpu,
                  s1_result& out) -> task<void> {
    std::atomic<bool> stop{false};
    const auto started = steady::now();
    auto ticks = spawn(ticker(config.tick, stop, started), "ticker");
    std::vector<join_handle<std::uint64_t>> requests;
    for (int i = 0; i < config.requests; ++i) {
      requests.push_back(spawn(request(sys, mode, config.batch, permits, cpu), "request"));
    }
    for (auto& r : requests) out.checksum += co_await r;
    out.total_ms = std::chrono::duration<double, std::milli>(steady::now() - started).count();
    stop = true;
    out.ticks = co_await ticks;
  }(sys, mode, config, permits, cpu, out));
  std::vector<double> lags;
  for (const auto& t : out.ticks) lags.push_back(t.lag_us);
  const lag_stats summary = summarize_lags(std::move(lags));
  out.worst_lag_us = summary.worst_us;
  out.p99_lag_us = summary.p99_us;
  return out;
}

s2_result run_s2(system& sys, int requests) {
  s2_result out;
  const auto errors_before = sys.compute().metrics().detached_errors;
  sys.block_on([](system& sys, int requests, s2_result& out) -> task<void> {
    std::vector<join_handle<std::uint64_t>> hs;
    for (int i = 0; i < requests; ++i) {
      hs.push_back(spawn(
          [](system& sys, int i) -> task<std::uint64_t> {
            co_return co_await offload(sys.compute(), [i]() -> std::uint64_t {
              if (i == 3) return std::vector<std::uint64_t>{}.at(0);  // the bad request
              return evaluate(64);
            });
          }(sys, i),
          "request"));
    }
    for (auto& h : hs) {
      try {
        co_await h;
        ++out.completed;
      } catch (const std::out_of_range& e) {
        ++out.failed;
        out.failed_type = "std::out_of_range";
        out.failed_message = e.what();
      } catch (const std::exception& e) {
        ++out.failed;
        out.failed_type = "std::exception";
        out.failed_message = e.what();
      }
    }
  }(sys, requests, out));
  // A detached job that throws reaches the pool's handler and is counted.
  sys.compute().spawn([] { throw std::runtime_error("a detached job failed (demo)"); });
  const auto deadline = steady::now() + std::chrono::seconds(5);
  while (sys.compute().metrics().detached_errors == errors_before && steady::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  out.detached_errors_counted = sys.compute().metrics().detached_errors - errors_before;
  return out;
}

}  // namespace lanes::tool
