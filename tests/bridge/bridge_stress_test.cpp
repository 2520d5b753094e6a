// 10,000 offloads through a gate with random aborts and random deadlines:
// every permit comes back, and every piece of work is accounted for
// exactly once - completed, failed, dropped unrun, or never admitted (shed
// or cancelled while waiting for a permit).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include <lanes/bridge/gate.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/yield.hpp>

#include "sanitized_build.hpp"

namespace lanes {
namespace {

using namespace std::chrono_literals;

TEST(BridgeStress, PermitsAndResultsAreAccountedForUnderRandomCancellation) {
  const int requests = 10'000 / lanes::detail::stress_divisor;
  constexpr std::size_t permits = 3;
  auto pool = compute::pool::builder().threads(2).build();
  auto rt = runtime::multi_thread().worker_threads(2).build();
  gate g(pool, permits);
  std::atomic<int> started{0};     // work that began running
  std::atomic<int> got_result{0};  // tasks that received a value
  std::atomic<int> got_error{0};   // tasks that received the job's exception
  std::atomic<int> got_busy{0};    // tasks shed
  std::atomic<int> running{0};
  std::atomic<int> worst{0};
  rt.block_on([](gate& g, int requests, std::atomic<int>& started, std::atomic<int>& got_result,
                 std::atomic<int>& got_error, std::atomic<int>& got_busy, std::atomic<int>& running,
                 std::atomic<int>& worst) -> task<void> {
    std::mt19937 rng(17);
    std::vector<join_handle<void>> hs;
    for (int i = 0; i < requests; ++i) {
      const auto patience = std::chrono::microseconds(rng() % 400);
      const auto work = std::chrono::microseconds(rng() % 50);
      const bool fails = rng() % 13 == 0;
      hs.push_back(
          spawn([](gate& g, std::chrono::microseconds patience, std::chrono::microseconds work, bool fails,
                   std::atomic<int>& started, std::atomic<int>& got_result, std::atomic<int>& got_error,
                   std::atomic<int>& got_busy, std::atomic<int>& running, std::atomic<int>& worst) -> task<void> {
            try {
              auto r = co_await g.try_run_for(patience, [=, &started, &running, &worst] {
                started.fetch_add(1);
                const int now = running.fetch_add(1) + 1;
                int seen = worst.load();
                while (now > seen && !worst.compare_exchange_weak(seen, now)) {
                }
                const auto until = std::chrono::steady_clock::now() + work;
                while (std::chrono::steady_clock::now() < until) {
                }
                running.fetch_sub(1);
                if (fails) throw std::domain_error("job failed");
                return 1;
              });
              (r.has_value() ? got_result : got_busy).fetch_add(1);
            } catch (const std::domain_error&) {
              got_error.fetch_add(1);
            }
          }(g, patience, work, fails, started, got_result, got_error, got_busy, running, worst)));
      if (rng() % 4 == 0) hs[rng() % hs.size()].abort();
      if (i % 64 == 0) co_await yield_now();
    }
    for (auto& h : hs) {
      try {
        co_await h;
      } catch (const task_cancelled&) {
      }
    }
  }(g, requests, started, got_result, got_error, got_busy, running, worst));
  pool.install([] {});  // work whose task left has finished
  while (g.metrics().in_flight != 0) std::this_thread::sleep_for(1ms);
  const auto m = g.metrics();
  EXPECT_EQ(g.available(), permits);  // every permit came back
  EXPECT_EQ(m.waiting, 0U);
  EXPECT_LE(worst.load(), static_cast<int>(permits));
  // Work that ran finished exactly once, as a value or as an exception.
  EXPECT_EQ(m.completed + m.failed, static_cast<std::uint64_t>(started.load()));
  // A task got a value or an error only for work that ran.
  EXPECT_LE(got_result.load() + got_error.load(), started.load());
  EXPECT_EQ(m.shed, static_cast<std::uint64_t>(got_busy.load()));
  EXPECT_GT(m.dropped + m.completed, 0U);
  EXPECT_GT(got_busy.load(), 0);  // the deadlines were tight enough to shed
}

}  // namespace
}  // namespace lanes
