// spawn_local: a pinned task runs on its home worker's thread at every
// resumption, however busy the other workers are and whoever wakes it.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/yield.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

task<int> stays_home(std::thread::id* moved_to) {
  const auto home = std::this_thread::get_id();
  for (int i = 0; i < 200; ++i) {
    if (i % 3 == 0) {
      co_await sleep(std::chrono::microseconds(50));  // woken by whichever worker fires timers
    } else {
      co_await yield_now();
    }
    if (std::this_thread::get_id() != home) {
      *moved_to = std::this_thread::get_id();
      co_return i;
    }
  }
  co_return -1;
}

task<void> busy() {
  for (int i = 0; i < 2000; ++i) co_await yield_now();  // keeps queues full: stealing happens
}

TEST(SpawnLocal, PinnedTasksNeverMove) {
  auto rt = runtime::multi_thread().worker_threads(4).build();
  const auto moves = rt.block_on([]() -> task<std::vector<int>> {
    std::vector<std::thread::id> moved(16);
    std::vector<join_handle<int>> pinned;
    std::vector<join_handle<void>> noise;
    for (int i = 0; i < 16; ++i) {
      noise.push_back(spawn(busy()));
      // spawn_local from a spawned task, so homes spread over the workers
      pinned.push_back(co_await spawn([](std::thread::id* m) -> task<join_handle<int>> {
        co_return spawn_local(stays_home(m));
      }(&moved[static_cast<std::size_t>(i)])));
    }
    std::vector<int> out;
    for (auto& h : pinned) out.push_back(co_await h);
    for (auto& h : noise) co_await h;
    co_return out;
  }());
  for (const int m : moves) EXPECT_EQ(m, -1) << "a pinned task was resumed on another thread";
}

TEST(SpawnLocal, AbortAndJoinFromAnotherTask) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  const bool cancelled = rt.block_on([]() -> task<bool> {
    auto h = co_await spawn([]() -> task<join_handle<int>> {
      co_return spawn_local([]() -> task<int> {
        co_await sleep(1h);
        co_return 1;
      }());
    }());
    co_await sleep(1ms);
    h.abort();
    try {
      co_await h;
    } catch (const task_cancelled&) {
      co_return true;
    }
    co_return false;
  }());
  EXPECT_TRUE(cancelled);
  EXPECT_EQ(rt.metrics().timers_pending, 0U);
}

TEST(SpawnLocal, OutsideATaskIsAnError) {
  EXPECT_THROW((void)spawn_local([]() -> task<int> { co_return 1; }()), runtime_misuse);
}

TEST(SpawnLocal, ShutdownCancelsPinnedTasks) {
  std::vector<join_handle<void>> handles;
  {
    auto rt = runtime::multi_thread().worker_threads(2).build();
    handles = rt.block_on([]() -> task<std::vector<join_handle<void>>> {
      std::vector<join_handle<void>> hs;
      for (int i = 0; i < 20; ++i) hs.push_back(spawn_local([]() -> task<void> { co_await sleep(1h); }()));
      co_await yield_now();
      co_return hs;
    }());
  }
  for (auto& h : handles) EXPECT_TRUE(h.is_finished());
}

}  // namespace
}  // namespace lanes
