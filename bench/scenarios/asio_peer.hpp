// Boost.Asio with C++20 coroutines, as the peer. Boost 1.74's headers use
// std::exchange without <utility>, and do not detect coroutine support on
// clang 14 with libstdc++ (CMake defines BOOST_ASIO_HAS_CO_AWAIT for it).
#pragma once

#include <coroutine>
#include <exception>
#include <future>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio.hpp>

namespace asio = boost::asio;

namespace lanes::bench {

// Runs `body()` - a coroutine returning asio::awaitable<std::vector<double>> -
// on an io_context served by `threads` threads, and returns what it returns
// (or rethrows what it throws). The peer side of most scenarios.
template <class Body>
std::vector<double> run_on_asio(unsigned threads, Body body) {
  asio::io_context ctx(static_cast<int>(threads));
  auto guard = asio::make_work_guard(ctx);
  std::vector<std::thread> runners;
  for (unsigned t = 0; t < threads; ++t) runners.emplace_back([&] { ctx.run(); });
  std::promise<std::vector<double>> done;
  asio::co_spawn(ctx, body(), [&](std::exception_ptr error, std::vector<double> result) {
    if (error) {
      done.set_exception(error);
    } else {
      done.set_value(std::move(result));
    }
  });
  auto future = done.get_future();
  future.wait();
  guard.reset();
  ctx.stop();
  for (auto& r : runners) r.join();
  return future.get();
}

}  // namespace lanes::bench
