// lanes::system: one budget, the lanes it builds, and offload wired to
// its own pool.
#include <lanes/system.hpp>

#include <sched.h>

#include <gtest/gtest.h>

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
}

}  // namespace
}  // namespace lanes
