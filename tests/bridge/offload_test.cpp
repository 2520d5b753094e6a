// offload and offload_blocking: results, exceptions with their types, the
// io worker staying free, cancellation while queued and while running.
#include <lanes/bridge/offload.hpp>

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <lanes/compute/join.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>

#include "pool_plug.hpp"

namespace lanes {
namespace {

using namespace std::chrono_literals;

struct custom_error {
  int code;
};

TEST(Offload, ResultsAndExceptionsKeepTheirTypes) {
  auto pool = compute::pool::builder().threads(2).build();
  auto rt = runtime::multi_thread().worker_threads(1).build();
  rt.block_on([](compute::pool& pool) -> task<void> {
    EXPECT_EQ(co_await offload(pool, [] { return 6 * 7; }), 42);
    EXPECT_EQ(co_await offload(pool, [] { return std::string("text"); }), "text");
    bool ran = false;
    co_await offload(pool, [&ran] { ran = true; });
    EXPECT_TRUE(ran);
    EXPECT_TRUE(co_await offload(pool, [&pool] { return pool.owns_current_thread(); }));
    try {
      co_await offload(pool, [] { return std::vector<int>{}.at(0); });
      ADD_FAILURE() << "no exception";
    } catch (const std::out_of_range&) {
    }
    try {
      co_await offload(pool, []() -> int { throw custom_error{7}; });
      ADD_FAILURE() << "no exception";
    } catch (const custom_error& e) {
      EXPECT_EQ(e.code, 7);
    }
    try {
      co_await offload(pool, [] { throw std::invalid_argument("bad input"); });
      ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "bad input");
    }
  }(pool));
}

TEST(Offload, TheIoWorkerKeepsTickingWhileWorkRuns) {
  auto pool = compute::pool::builder().threads(1).build();
  auto rt = runtime::multi_thread().worker_threads(1).build();
  const int ticks = rt.block_on([](compute::pool& pool) -> task<int> {
    std::atomic<bool> stop{false};
    auto ticker = spawn([](std::atomic<bool>& stop) -> task<int> {
      int n = 0;
      while (!stop.load()) {
        co_await sleep(1ms);
        ++n;
      }
      co_return n;
    }(stop));
    co_await offload(pool, [] { std::this_thread::sleep_for(60ms); });
    stop = true;
    co_return co_await ticker;
  }(pool));
  EXPECT_GE(ticks, 10);  // a blocked io worker would tick once at most
}

TEST(Offload, WithoutAPoolUsesTheDefaultOne) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  EXPECT_TRUE(rt.block_on([]() -> task<bool> {
    co_return co_await offload([] { return compute::default_pool().owns_current_thread(); });
  }()));
}

TEST(Offload, OutsideATaskIsAnError) {
  auto pool = compute::pool::builder().threads(1).build();
  auto a = offload(pool, [] { return 1; });
  EXPECT_THROW(a.await_suspend(std::noop_coroutine()), runtime_misuse);
}

TEST(Offload, CancelledWhileQueuedTheWorkIsDroppedUnrun) {
  auto pool = compute::pool::builder().threads(1).build();
  auto rt = runtime::multi_thread().worker_threads(1).build();
  testing_support::pool_plug p;
  p.hold(pool);
  std::atomic<bool> ran{false};
  rt.block_on([](compute::pool& pool, std::atomic<bool>& ran) -> task<void> {
    auto h = spawn([](compute::pool& pool, std::atomic<bool>& ran) -> task<void> {
      co_await offload(pool, [&ran] { ran = true; });
    }(pool, ran));
    co_await sleep(2ms);  // queued behind the plug now
    h.abort();
    EXPECT_THROW(co_await h, task_cancelled);
  }(pool, ran));
  p.release = true;
  pool.install([] {});  // the queue has drained past the dropped work
  EXPECT_FALSE(ran.load());
}

TEST(Offload, ATimeoutWhileRunningDiscardsTheResult) {
  auto pool = compute::pool::builder().threads(1).build();
  auto rt = runtime::multi_thread().worker_threads(1).build();
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  const bool timed_out =
      rt.block_on([](compute::pool& pool, std::atomic<bool>& started, std::atomic<bool>& finished) -> task<bool> {
        co_await offload(pool, [] {});  // the worker is awake
        auto r = co_await timeout(20ms, offload(pool, [&started, &finished] {
                                    started = true;
                                    std::this_thread::sleep_for(60ms);
                                    finished = true;
                                    return std::string(1000, 'x');  // discarded: nothing may leak (ASan)
                                  }));
        co_return !r.has_value();
      }(pool, started, finished));
  EXPECT_TRUE(timed_out);
  pool.install([] {});  // queued behind the job, if it ran
  // Once started, the work ran to its end (a slow VM may have let the
  // deadline pass before it started: then it was dropped unrun instead).
  EXPECT_EQ(finished.load(), started.load());
}

TEST(OffloadBlocking, RunsOnTheBlockingLane) {
  auto rt = runtime::multi_thread().worker_threads(1).blocking_threads(2).build();
  const std::string name = rt.block_on([]() -> task<std::string> {
    co_return co_await offload_blocking([] {
      char buf[16] = {};
      pthread_getname_np(pthread_self(), buf, sizeof buf);
      return std::string(buf);
    });
  }());
  EXPECT_EQ(name.rfind("lanes-blocking", 0), 0U) << name;
  EXPECT_THROW(rt.block_on([]() -> task<void> { co_await offload_blocking([] { throw std::runtime_error("io"); }); }()),
               std::runtime_error);
}

TEST(InlineComputeDetector, FiresInlineAndStaysQuietWhenOffloaded) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  const auto evaluate = [] {
    auto [a, b] = compute::join([] { return 1; }, [] { return 2; });
    return a + b;
  };
  testing::internal::CaptureStderr();
  const int offloaded = rt.block_on([](auto evaluate) -> task<int> { co_return co_await offload(evaluate); }(evaluate));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(offloaded, 3);
  testing::internal::CaptureStderr();
  const int inline_result = rt.block_on([](auto evaluate) -> task<int> { co_return evaluate(); }(evaluate));
  const std::string warned = testing::internal::GetCapturedStderr();
  EXPECT_EQ(inline_result, 3);
  EXPECT_NE(warned.find("compute work started on an io worker"), std::string::npos) << warned;
}

}  // namespace
}  // namespace lanes
