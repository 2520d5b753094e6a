// Timers through the runtime: ordering, zero and past deadlines, cancellation.
#include <lanes/io/sleep.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <vector>

#include <lanes/io/runtime.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

class SleepBothFlavors : public ::testing::TestWithParam<bool> {
 protected:
  runtime make() const {
    return GetParam() ? runtime::multi_thread().worker_threads(2).build() : runtime::current_thread().build();
  }
};

TEST_P(SleepBothFlavors, NeverFiresEarly) {
  auto rt = make();
  auto elapsed = rt.block_on([]() -> task<clock::duration> {
    const auto start = clock::now();
    co_await sleep(3ms);
    co_return clock::now() - start;
  }());
  EXPECT_GE(elapsed, 3ms);
}

TEST_P(SleepBothFlavors, SleepUntilThePastAndZeroReturn) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    co_await sleep(0ms);
    co_await sleep(-5ms);
    co_await sleep_until(clock::now() - 1s);
  }());
  SUCCEED();
}

TEST(Sleep, OneThreadWakesInDeadlineOrder) {
  // On one thread, timers due together are woken in deadline order. (On
  // several workers, tasks woken together may run in either order.)
  auto rt = runtime::current_thread().build();
  std::mutex m;
  std::vector<int> order;
  rt.block_on([](std::mutex& m, std::vector<int>& order) -> task<void> {
    std::vector<join_handle<void>> hs;
    for (int i : {5, 1, 4, 2, 3}) {
      hs.push_back(spawn([](int i, std::mutex& m, std::vector<int>& order) -> task<void> {
        co_await sleep(std::chrono::microseconds(300 * i));
        std::lock_guard lock(m);
        order.push_back(i);
      }(i, m, order)));
    }
    for (auto& h : hs) co_await h;
  }(m, order));
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5}));
}

TEST_P(SleepBothFlavors, ManyTimersAllFire) {
  auto rt = make();
  const int fired = rt.block_on([]() -> task<int> {
    std::vector<join_handle<int>> hs;
    for (int i = 0; i < 5000; ++i) {
      hs.push_back(spawn([](int i) -> task<int> {
        co_await sleep(std::chrono::microseconds(100 * (i % 50)));
        co_return 1;
      }(i)));
    }
    int n = 0;
    for (auto& h : hs) n += co_await h;
    co_return n;
  }());
  EXPECT_EQ(fired, 5000);
  EXPECT_EQ(rt.metrics().timers_pending, 0U);
}

TEST_P(SleepBothFlavors, FarFutureTimersDoNotOverflow) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto h = spawn([]() -> task<void> { co_await sleep(std::chrono::hours::max()); }());
    auto h2 = spawn([]() -> task<void> { co_await sleep_until(clock::time_point::max()); }());
    co_await sleep(1ms);
    EXPECT_FALSE(h.is_finished());
    h.abort();
    h2.abort();
    EXPECT_THROW(co_await h, task_cancelled);
    EXPECT_THROW(co_await h2, task_cancelled);
  }());
  EXPECT_EQ(rt.metrics().timers_pending, 0U);
}

INSTANTIATE_TEST_SUITE_P(Io, SleepBothFlavors, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "MultiThread" : "CurrentThread"; });

}  // namespace
}  // namespace lanes
