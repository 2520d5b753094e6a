// Asio + oneTBB offload round trip (see offload_peer.hpp).
#include "offload_peer.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <utility>
#include <vector>

#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

#include "asio_peer.hpp"
#include "kernels.hpp"
#include "scenario.hpp"

namespace lanes::bench {

namespace {

// co_await tbb_offload(arena, f): f runs in the arena; the handler is
// posted back to the coroutine's executor with f's result.
template <class F>
auto tbb_offload(tbb::task_arena& arena, F f) {
  return asio::async_initiate<const asio::use_awaitable_t<>, void(int)>(
      [&arena, f](auto handler) {
        auto ex = asio::get_associated_executor(handler);
        auto shared = std::make_shared<decltype(handler)>(std::move(handler));
        arena.enqueue([f, shared, ex] {
          const int r = f();
          asio::post(ex, [shared, r] { std::move (*shared)(r); });
        });
      },
      asio::use_awaitable);
}

// The same with a uint64 result.
template <class F>
auto tbb_offload_u64(tbb::task_arena& arena, F f) {
  return asio::async_initiate<const asio::use_awaitable_t<>, void(std::uint64_t)>(
      [&arena, f](auto handler) {
        auto ex = asio::get_associated_executor(handler);
        auto shared = std::make_shared<decltype(handler)>(std::move(handler));
        arena.enqueue([f, shared, ex] {
          const std::uint64_t r = f();
          asio::post(ex, [shared, r] { std::move (*shared)(r); });
        });
      },
      asio::use_awaitable);
}

// A counting semaphore for coroutines on one io thread (Asio 1.74 has
// none): waiters are timers that are cancelled to wake them.
class asio_permits {
 public:
  asio_permits(asio::io_context& ctx, int n) : ctx_(ctx), free_(n) {}
  asio::awaitable<void> acquire() {
    if (free_ > 0) {
      --free_;
      co_return;
    }
    asio::steady_timer wait(ctx_, std::chrono::steady_clock::time_point::max());
    waiters_.push_back(&wait);
    try {
      co_await wait.async_wait(asio::use_awaitable);
    } catch (const boost::system::system_error&) {
    }
  }
  void release() {
    if (waiters_.empty()) {
      ++free_;
      return;
    }
    auto* next = waiters_.front();
    waiters_.pop_front();
    next->cancel();  // the permit passes straight to it
  }

 private:
  asio::io_context& ctx_;
  int free_;
  std::deque<asio::steady_timer*> waiters_;
};

std::uint64_t tbb_evaluate(std::size_t batch) {
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, batch), std::uint64_t{0},
      [](const tbb::blocked_range<std::size_t>& r, std::uint64_t acc) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) acc += s1_f(i);
        return acc;
      },
      std::plus<>{});
}

// One mode: {total ms, worst lag us, p99 lag us, checksum}.
std::vector<double> asio_tbb_s1_mode(bool offloaded, int requests, std::size_t batch, unsigned threads) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads + 1);
  tbb::task_arena arena(static_cast<int>(threads), offloaded ? 0 : 1);
  asio::io_context ctx(1);
  asio_permits permits(ctx, 2);
  std::vector<double> lags;
  bool stop = false;
  int remaining = requests;
  std::uint64_t checksum = 0;
  const auto started = std::chrono::steady_clock::now();
  double total_ms = 0;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        asio::steady_timer t(ctx);
        auto next = started;
        while (!stop) {
          next += std::chrono::milliseconds(5);
          t.expires_at(next);
          co_await t.async_wait(asio::use_awaitable);
          lags.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - next).count());
        }
      },
      asio::detached);
  for (int i = 0; i < requests; ++i) {
    asio::co_spawn(
        ctx,
        [&]() -> asio::awaitable<void> {
          std::uint64_t v = 0;
          if (offloaded) {
            co_await permits.acquire();
            v = co_await tbb_offload_u64(arena, [batch] { return tbb_evaluate(batch); });
            permits.release();
          } else {
            arena.execute([&] { v = tbb_evaluate(batch); });  // on the io thread
          }
          checksum += v;
          if (--remaining == 0) {
            total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
            stop = true;
          }
        },
        asio::detached);
  }
  ctx.run();
  const lag_stats ticker = summarize_lags(std::move(lags));
  return {total_ms, ticker.worst_us, ticker.p99_us, static_cast<double>(checksum % 1000003)};
}

void burn_for(std::chrono::milliseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// {worst lag us, p99 lag us} of 1 ms timers while the jobs run.
std::vector<double> asio_tbb_s7_mode(bool offloaded, int jobs, int job_ms, unsigned threads) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads + 1);
  tbb::task_arena arena(static_cast<int>(threads), 0);
  asio::io_context ctx(1);
  std::vector<double> lags;
  int remaining = jobs;
  bool stop = false;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        asio::steady_timer t(ctx);
        while (!stop) {
          const auto due = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
          t.expires_at(due);
          co_await t.async_wait(asio::use_awaitable);
          lags.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - due).count());
        }
      },
      asio::detached);
  for (int i = 0; i < jobs; ++i) {
    asio::co_spawn(
        ctx,
        [&]() -> asio::awaitable<void> {
          if (offloaded) {
            co_await tbb_offload(arena, [job_ms] {
              burn_for(std::chrono::milliseconds(job_ms));
              return 1;
            });
          } else {
            burn_for(std::chrono::milliseconds(job_ms));
          }
          if (--remaining == 0) stop = true;
        },
        asio::detached);
  }
  ctx.run();
  const lag_stats timer = summarize_lags(std::move(lags));
  return {timer.worst_us, timer.p99_us};
}

}  // namespace

std::vector<double> asio_tbb_s7(int jobs, int job_ms, unsigned threads) {
  auto in = asio_tbb_s7_mode(false, jobs, job_ms, threads);
  const auto off = asio_tbb_s7_mode(true, jobs, job_ms, threads);
  in.insert(in.end(), off.begin(), off.end());
  return in;
}

std::vector<double> asio_tbb_s1(int requests, std::size_t batch, unsigned threads) {
  auto in = asio_tbb_s1_mode(false, requests, batch, threads);
  const auto off = asio_tbb_s1_mode(true, requests, batch, threads);
  in.insert(in.end(), off.begin(), off.end());
  return in;
}

double asio_tbb_offload_ns(int ops, unsigned threads) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads + 1);
  tbb::task_arena arena(static_cast<int>(threads), 0);
  asio::io_context ctx(1);
  std::promise<double> done;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        long sum = 0;
        for (int i = 0; i < 1000; ++i) sum += co_await tbb_offload(arena, [] { return 1; });
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < ops; ++i) sum += co_await tbb_offload(arena, [] { return 1; });
        const double ns =
            std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / ops;
        if (sum != 1000 + ops) throw std::logic_error("asio+tbb lost an offload");
        done.set_value(ns);
      },
      asio::detached);
  ctx.run();
  return done.get_future().get();
}

}  // namespace lanes::bench
