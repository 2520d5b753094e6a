// lanes::system: one budget, the lanes it builds, and offload wired to
// its own pool.
#include <lanes/system.hpp>

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

TEST(System, ZeroThreadsAreConfigErrors) {
  EXPECT_THROW(system::builder().io_threads(0), config_error);
  EXPECT_THROW(system::builder().compute_threads(0), config_error);
  EXPECT_THROW(system::builder().blocking_threads(0), config_error);
}

}  // namespace
}  // namespace lanes
