// spawn_blocking from io tasks: results, typed exceptions, io keeps going
// while a blocking call runs, jobs dropped at shutdown.
#include <lanes/blocking/spawn_blocking.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#include <lanes/compose/select.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

TEST(SpawnBlocking, ResultsAndTypedExceptions) {
  auto rt = runtime::multi_thread().worker_threads(1).blocking_threads(4).build();
  rt.block_on([]() -> task<void> {
    EXPECT_EQ(co_await spawn_blocking([] { return std::string("read"); }), "read");
    bool ran = false;
    co_await spawn_blocking([&ran] { ran = true; });
    EXPECT_TRUE(ran);
    try {
      co_await spawn_blocking([]() -> int { throw std::out_of_range("no such file"); });
      ADD_FAILURE() << "no exception";
    } catch (const std::out_of_range& e) {
      EXPECT_STREQ(e.what(), "no such file");
    }
  }());
  // A job is counted once its thread is done with it, which is just after
  // the awaiting task got its result: give the count a moment to land.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (rt.metrics().blocking.jobs_completed < 3U && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_GE(rt.metrics().blocking.jobs_completed, 3U);
}

TEST(SpawnBlocking, RunsOffTheIoWorkerAndTimersKeepTicking) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  const int ticks = rt.block_on([]() -> task<int> {
    const auto io_thread = std::this_thread::get_id();
    auto job = spawn_blocking([io_thread] {
      EXPECT_NE(std::this_thread::get_id(), io_thread);
      std::this_thread::sleep_for(60ms);  // would freeze the only io worker if it ran there
    });
    int ticks = 0;
    for (int i = 0; i < 10; ++i) {
      co_await sleep(2ms);
      ++ticks;
    }
    co_await job;
    co_return ticks;
  }());
  EXPECT_EQ(ticks, 10);
}

TEST(SpawnBlocking, OutsideATaskIsAnError) {
  EXPECT_THROW((void)spawn_blocking([] {}), runtime_misuse);
}

// A handle kept by the caller that loses a select leaves its job alone (as
// a join_handle leaves its task): the select returns at once, and the
// handle is awaited later for the job's result. A handle given to the
// select as a temporary is the select's: it loses by waiting for its job
// (docs/bridge.md).
TEST(SpawnBlocking, AKeptHandleThatLosesASelectKeepsItsJob) {
  auto rt = runtime::multi_thread().worker_threads(1).blocking_threads(2).build();
  rt.block_on([]() -> task<void> {
    std::atomic<bool> release{false};
    auto h = spawn_blocking([&release] {
      while (!release.load()) std::this_thread::sleep_for(100us);
      return 7;
    });
    auto r = co_await select(h, sleep(1ms));
    EXPECT_EQ(r.index(), 1U);
    release = true;
    EXPECT_EQ(co_await h, 7);
  }());
}

TEST(SpawnBlocking, JobsQueuedAtShutdownAreCancelledNotLost) {
  std::atomic<int> ran{0};
  std::atomic<int> started{0};  // outlives the runtime: jobs may start until it shuts down
  std::vector<blocking_handle<void>> handles;
  {
    auto rt = runtime::multi_thread().worker_threads(1).blocking_threads(1).build();
    handles =
        rt.block_on([](std::atomic<int>& ran, std::atomic<int>& started) -> task<std::vector<blocking_handle<void>>> {
          std::vector<blocking_handle<void>> hs;
          for (int i = 0; i < 5; ++i) {
            hs.push_back(spawn_blocking([&ran, &started] {
              started.fetch_add(1);
              std::this_thread::sleep_for(20ms);
              ran.fetch_add(1);
            }));
          }
          while (started.load() == 0) co_await sleep(100us);  // the first job is running: shut down now
          co_return hs;
        }(ran, started));
  }  // shutdown: the running job finishes, the queued ones are dropped
  const int finished = ran.load();
  EXPECT_GE(finished, 1);
  EXPECT_LT(finished, 5);
  // Awaiting their handles (on a new runtime): the ones that ran succeed,
  // the dropped ones say task_cancelled.
  auto rt2 = runtime::current_thread().build();
  const int cancelled = rt2.block_on([](std::vector<blocking_handle<void>>& hs) -> task<int> {
    int n = 0;
    for (auto& h : hs) {
      try {
        co_await h;
      } catch (const task_cancelled&) {
        ++n;
      }
    }
    co_return n;
  }(handles));
  EXPECT_EQ(cancelled + finished, 5);
}

}  // namespace
}  // namespace lanes
