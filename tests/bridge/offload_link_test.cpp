// The bridge's link on a runtime (bridge/detail/offload_link.hpp, through
// io/detail/lane_link.hpp): where offloads go, and how long idle io
// workers look for work while tasks wait on an offload.
#include <lanes/bridge/detail/offload_link.hpp>

#include <memory>

#include <gtest/gtest.h>
#include <lanes/bridge/offload.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/system.hpp>

namespace lanes {
namespace {

TEST(OffloadLink, WorkersLookBeforeParkingOnlyWhileATaskWaitsOnAnOffload) {
  detail::offload_link link(nullptr);
  EXPECT_EQ(link.look_before_park_ns(), 0u);
  link.waiter_enter();
  link.waiter_enter();
  EXPECT_EQ(link.look_before_park_ns(), detail::offload_link::look_ns);
  link.waiter_leave();
  EXPECT_EQ(link.look_before_park_ns(), detail::offload_link::look_ns);
  link.waiter_leave();
  EXPECT_EQ(link.look_before_park_ns(), 0u);
  EXPECT_EQ(&link.compute(), &compute::detail::default_pool_state());
}

TEST(OffloadLink, ARuntimeKeepsTheFirstLinkInstalled) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  auto& owner = detail::scheduler_of(rt);
  EXPECT_EQ(detail::installed_link(owner), nullptr);
  compute::pool pool = compute::pool::builder().threads(1).build();
  auto first = std::make_unique<detail::offload_link>(&compute::detail::pool_state_of(pool));
  auto* first_ptr = first.get();
  EXPECT_EQ(&detail::install_link(owner, std::move(first)), first_ptr);
  EXPECT_EQ(&detail::install_link(owner, std::make_unique<detail::offload_link>(nullptr)), first_ptr);
  EXPECT_EQ(detail::installed_link(owner), first_ptr);
  EXPECT_EQ(&detail::offload_link_of(owner).compute(), &compute::detail::pool_state_of(pool));
}

// A plain runtime gets a link on its first offload, to the default pool;
// a system's runtime has one from the start, to the system's pool.
TEST(OffloadLink, APlainRuntimeOffloadsToTheDefaultPoolASystemToItsOwn) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  EXPECT_EQ(detail::installed_link(detail::scheduler_of(rt)), nullptr);
  const int v = rt.block_on([]() -> task<int> { co_return co_await offload([] { return 7; }); }());
  EXPECT_EQ(v, 7);
  auto* link = detail::installed_link(detail::scheduler_of(rt));
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(&static_cast<detail::offload_link*>(link)->compute(), &compute::detail::default_pool_state());
  EXPECT_EQ(link->look_before_park_ns(), 0u) << "no task waits on an offload any more";

  auto sys = system::builder().io_threads(1).compute_threads(1).build();
  auto* sys_link = detail::installed_link(detail::scheduler_of(sys.io()));
  ASSERT_NE(sys_link, nullptr);
  EXPECT_EQ(&static_cast<detail::offload_link*>(sys_link)->compute(), &compute::detail::pool_state_of(sys.compute()));
}

}  // namespace
}  // namespace lanes
