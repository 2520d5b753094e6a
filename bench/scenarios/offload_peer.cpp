// Asio + oneTBB offload round trip (see offload_peer.hpp).
#include "offload_peer.hpp"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

#include "asio_peer.hpp"

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

}  // namespace

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
        const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / ops;
        if (sum != 1000 + ops) throw std::logic_error("asio+tbb lost an offload");
        done.set_value(ns);
      },
      asio::detached);
  ctx.run();
  return done.get_future().get();
}

}  // namespace lanes::bench
