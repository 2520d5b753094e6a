// The composition issue's benchmarks, lanes against the plain Asio (Boost
// 1.74) construction a user would write, in the same run:
//   select   - race two timers, one due now and one in an hour, and return
//              once the loser is cancelled: lanes::select(sleep_until(now),
//              sleep(1h)) vs two steady_timers whose handlers count down,
//              the winner cancelling the loser;
//   when_all - spawn 10 trivial tasks and await all of them: lanes::when_all
//              over a vector vs 10 co_spawns counting down to a timer cancel
//              (experimental::make_parallel_group is not in Boost 1.74);
//   cancel   - 100,000 tasks asleep for an hour, stopped through one
//              cancellation_token: time from cancel() until every task has
//              ended, vs cancelling 100,000 steady_timers one by one (Boost
//              1.74 has no per-operation cancellation slots).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include <lanes/budget.hpp>
#include <lanes/compose/select.hpp>
#include <lanes/compose/when_all.hpp>
#include <lanes/compose/with_cancellation.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/sync/notify.hpp>

#include "asio_peer.hpp"
#include "json_writer.hpp"
#include "scenario.hpp"

namespace lanes::bench {

namespace {

using steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

double ns_since(steady::time_point start, long ops) {
  return std::chrono::duration<double, std::nano>(steady::now() - start).count() / static_cast<double>(ops);
}

task<int> trivial() { co_return 1; }

// {select ns/call, when_all(10) ns/call, cancel 100k ms}
std::vector<double> lanes_side(int selects, int whens, int sleepers, unsigned workers) {
  auto rt = runtime::multi_thread().worker_threads(workers).build();
  return rt.block_on([](int selects, int whens, int sleepers) -> task<std::vector<double>> {
    long won = 0;
    for (int i = 0; i < 1000; ++i)
      won += static_cast<long>((co_await select(sleep_until(steady::now()), sleep(1h))).index());
    auto start = steady::now();
    for (int i = 0; i < selects; ++i) {
      won += static_cast<long>((co_await select(sleep_until(steady::now()), sleep(1h))).index());
    }
    const double select_ns = ns_since(start, selects);
    if (won != 0) throw std::logic_error("lanes: the hour-long timer won a race");

    long sum = 0;
    auto ten = [] {
      std::vector<task<int>> v;
      v.reserve(10);
      for (int k = 0; k < 10; ++k) v.push_back(trivial());
      return v;
    };
    for (int i = 0; i < 1000; ++i)
      for (int v : co_await when_all(ten())) sum += v;
    start = steady::now();
    for (int i = 0; i < whens; ++i)
      for (int v : co_await when_all(ten())) sum += v;
    const double when_ns = ns_since(start, whens);
    if (sum != 10L * (1000 + whens)) throw std::logic_error("lanes: when_all lost a result");

    cancellation_token token;
    auto started = std::make_shared<std::atomic<int>>(0);
    auto ended = std::make_shared<std::atomic<int>>(0);
    notify all_ended;
    for (int i = 0; i < sleepers; ++i) {
      (void)spawn([](cancellation_token t, std::shared_ptr<std::atomic<int>> started,
                     std::shared_ptr<std::atomic<int>> ended, notify& all, int total) -> task<void> {
        started->fetch_add(1);
        (void)co_await with_cancellation(t, sleep(1h));
        if (ended->fetch_add(1) + 1 == total) all.notify_one();
      }(token, started, ended, all_ended, sleepers));
    }
    while (started->load() < sleepers) co_await sleep(1ms);
    co_await sleep(10ms);  // the last ones have suspended
    start = steady::now();
    token.cancel();
    co_await all_ended.notified();
    const double cancel_ms = ns_since(start, 1) / 1e6;
    co_return std::vector<double>{select_ns, when_ns, cancel_ms};
  }(selects, whens, sleepers));
}

std::vector<double> asio_side(int selects, int whens, int sleepers, unsigned threads) {
  return run_on_asio(threads, [&]() -> asio::awaitable<std::vector<double>> {
    auto ex = co_await asio::this_coro::executor;
    // select: two timers; the first handler cancels the other; return when both handlers ran.
    auto race = [&]() -> asio::awaitable<int> {
      asio::steady_timer now(ex, steady::now()), hour(ex, steady::now() + 1h);
      asio::steady_timer both_done(ex, steady::time_point::max());
      int winner = -1;
      int pending = 2;
      auto finish = [&](int who) {
        if (winner < 0) {
          winner = who;
          (who == 0 ? hour : now).cancel();
        }
        if (--pending == 0) both_done.cancel();
      };
      now.async_wait([&](const boost::system::error_code&) { finish(0); });
      hour.async_wait([&](const boost::system::error_code&) { finish(1); });
      try {
        co_await both_done.async_wait(asio::use_awaitable);
      } catch (const boost::system::system_error&) {
      }
      co_return winner;
    };
    long won = 0;
    for (int i = 0; i < 1000; ++i) won += co_await race();
    auto start = steady::now();
    for (int i = 0; i < selects; ++i) won += co_await race();
    const double select_ns = ns_since(start, selects);
    if (won != 0) throw std::logic_error("asio: the hour-long timer won a race");

    auto all10 = [&]() -> asio::awaitable<long> {
      auto remaining = std::make_shared<std::atomic<int>>(10);
      auto results = std::make_shared<std::vector<int>>(10);
      asio::steady_timer all_done(ex, steady::time_point::max());
      for (int k = 0; k < 10; ++k) {
        asio::co_spawn(
            ex, []() -> asio::awaitable<int> { co_return 1; }(),
            [&all_done, remaining, results, k](std::exception_ptr, int v) {
              (*results)[static_cast<std::size_t>(k)] = v;
              if (remaining->fetch_sub(1) == 1) asio::post(all_done.get_executor(), [&all_done] { all_done.cancel(); });
            });
      }
      try {
        co_await all_done.async_wait(asio::use_awaitable);
      } catch (const boost::system::system_error&) {
      }
      long s = 0;
      for (int v : *results) s += v;
      co_return s;
    };
    long sum = 0;
    for (int i = 0; i < 1000; ++i) sum += co_await all10();
    start = steady::now();
    for (int i = 0; i < whens; ++i) sum += co_await all10();
    const double when_ns = ns_since(start, whens);
    if (sum != 10L * (1000 + whens)) throw std::logic_error("asio: lost a result");

    std::vector<std::unique_ptr<asio::steady_timer>> timers;
    timers.reserve(static_cast<std::size_t>(sleepers));
    auto ended = std::make_shared<std::atomic<int>>(0);
    asio::steady_timer all_ended(ex, steady::time_point::max());
    for (int i = 0; i < sleepers; ++i) {
      timers.push_back(std::make_unique<asio::steady_timer>(ex, steady::now() + 1h));
      asio::co_spawn(
          ex,
          [](asio::steady_timer& t) -> asio::awaitable<void> {
            try {
              co_await t.async_wait(asio::use_awaitable);
            } catch (const boost::system::system_error&) {
            }
          }(*timers.back()),
          [&all_ended, ended, sleepers](std::exception_ptr) {
            if (ended->fetch_add(1) + 1 == sleepers)
              asio::post(all_ended.get_executor(), [&all_ended] { all_ended.cancel(); });
          });
    }
    asio::steady_timer settle(ex, steady::now() + 50ms);
    co_await settle.async_wait(asio::use_awaitable);
    start = steady::now();
    for (auto& t : timers) t->cancel();
    try {
      co_await all_ended.async_wait(asio::use_awaitable);
    } catch (const boost::system::system_error&) {
    }
    const double cancel_ms = ns_since(start, 1) / 1e6;
    co_return std::vector<double>{select_ns, when_ns, cancel_ms};
  });
}

}  // namespace

int run_compose(const options& opts) {
  const int selects = opts.quick ? 20'000 : 500'000;
  const int whens = opts.quick ? 2'000 : 50'000;
  const int sleepers = opts.quick ? 10'000 : 100'000;
  const int rounds = opts.quick ? 1 : 3;
  const unsigned workers = budget::detect().io_threads.value;
  std::vector<double> ls, lw, lc, as, aw, ac;
  for (int r = 0; r < rounds; ++r) {
    const auto l = run_isolated([&] { return lanes_side(selects, whens, sleepers, workers); });
    const auto a = run_isolated([&] { return asio_side(selects, whens, sleepers, workers); });
    ls.push_back(l[0]);
    lw.push_back(l[1]);
    lc.push_back(l[2]);
    as.push_back(a[0]);
    aw.push_back(a[1]);
    ac.push_back(a[2]);
  }
  const double s = median(ls), w = median(lw), c = median(lc), sa = median(as), wa = median(aw), ca = median(ac);
  if (!opts.json) {
    std::printf("compose: select, when_all, cancellation, %u io thread(s), median of %d runs\n", workers, rounds);
    std::printf("  %-44s %10s %10s %8s\n", "", "lanes", "asio", "ratio");
    std::printf("  %-44s %10.1f %10.1f %8.2f\n", "select of two timers (one due now), ns/call", s, sa, s / sa);
    std::printf("  %-44s %10.1f %10.1f %8.2f\n", "when_all of 10 trivial tasks, ns/call", w, wa, w / wa);
    std::printf("  %-44s %10.2f %10.2f %8.2f\n", "cancel sleeping tasks through one token, ms", c, ca, c / ca);
    std::printf("  (%d sleepers)\n", sleepers);
  }
  tool::json_writer json;
  json.begin_object()
      .field("scenario", "compose")
      .field("io_threads", workers)
      .field("runs", static_cast<unsigned>(rounds))
      .field("lanes_select_ns_per_call", s)
      .field("asio_select_ns_per_call", sa)
      .field("select_ratio_lanes_over_asio", s / sa)
      .field("lanes_when_all_10_ns_per_call", w)
      .field("asio_when_all_10_ns_per_call", wa)
      .field("when_all_ratio_lanes_over_asio", w / wa)
      .field("sleepers", static_cast<unsigned>(sleepers))
      .field("lanes_cancel_all_ms", c)
      .field("asio_cancel_all_ms", ca)
      .field("cancel_ratio_lanes_over_asio", c / ca)
      .end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
