// lanes::system: one budget, the lanes it builds, and offload wired to
// its own pool.
#include <lanes/system.hpp>

#include <sched.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

#include <lanes/bridge/offload.hpp>
#include <lanes/config_error.hpp>

namespace lanes {
namespace {

TEST(System, BuildsTheLanesFromTheBudget) {
  cpu_limits two;
  two.affinity_cpus = 2;
  auto b = budget_builder().ignore_environment().limits(two).build();
  auto sys = system::builder().budget(b).build();
  EXPECT_EQ(sys.io().worker_count(), b.io_threads.value);
  EXPECT_EQ(sys.compute().threads(), b.compute_threads.value);
  EXPECT_EQ(sys.budget().cpus.value, 2U);
}

TEST(System, OffloadUsesTheSystemsPool) {
  auto sys = system::builder().io_threads(1).compute_threads(2).build();
  const bool on_ours = sys.block_on([](compute::pool& mine) -> task<bool> {
    co_return co_await offload([&mine] { return mine.owns_current_thread(); });
  }(sys.compute()));
  EXPECT_TRUE(on_ours);
}

// The system's compute lane yields to its io lane at once by default (SCHED_IDLE).
TEST(System, ComputeThreadsAreIdlePriorityByDefaultAndConfigurable) {
  const auto policy_of = [](system& sys) {
    return sys.block_on([](compute::pool& pool) -> task<int> {
      co_return co_await offload(pool, [] { return sched_getscheduler(0); });
    }(sys.compute()));
  };
  auto by_default = system::builder().io_threads(1).compute_threads(1).build();
  EXPECT_EQ(policy_of(by_default), SCHED_IDLE);
  auto low = system::builder().io_threads(1).compute_threads(1).compute_priority(compute::thread_priority::low).build();
  EXPECT_EQ(policy_of(low), SCHED_BATCH);
  auto normal = system::builder().io_threads(1).compute_threads(1).compute_low_priority(false).build();
  EXPECT_EQ(policy_of(normal), SCHED_OTHER);
}

TEST(System, ZeroThreadsAreConfigErrors) {
  EXPECT_THROW(system::builder().io_threads(0), config_error);
  EXPECT_THROW(system::builder().compute_threads(0), config_error);
  EXPECT_THROW(system::builder().blocking_threads(0), config_error);
  EXPECT_THROW(system::builder().shutdown_timeout(std::chrono::milliseconds(-1)), config_error);
}

// Destroying the system while a task's offload reads the task's locals:
// the io lane's shutdown waits for the work before it frees the frame,
// and only then does the compute pool go.
TEST(System, DestructionWaitsForWorkThatReadsACancelledTasksFrame) {
  std::atomic<bool> started{false};
  std::atomic<bool> ended{false};
  std::atomic<long> sum{0};
  {
    auto sys = system::builder().io_threads(1).compute_threads(1).build();
    auto h = sys.spawn([](std::atomic<bool>& started, std::atomic<bool>& ended, std::atomic<long>& sum) -> task<void> {
      std::vector<long> data(4096, 1);
      co_await offload([&] {
        started = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        sum = std::accumulate(data.begin(), data.end(), 0L);
        ended = true;
      });
    }(started, ended, sum));
    while (!started.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  EXPECT_TRUE(ended.load());
  EXPECT_EQ(sum.load(), 4096);
}

}  // namespace
}  // namespace lanes
