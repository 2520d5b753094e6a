// gate: the bound holds, waiters are served in order, shedding answers
// busy and leaves nothing queued, metrics add up.
#include <lanes/bridge/gate.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include <lanes/io/join_set.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

void bound_holds(std::size_t permits, int requests) {
  auto pool = compute::pool::builder().threads(4).build();
  auto rt = runtime::multi_thread().worker_threads(2).build();
  gate g(pool, permits);
  std::atomic<int> running{0};
  std::atomic<int> worst{0};
  const long total =
      rt.block_on([](gate& g, int requests, std::atomic<int>& running, std::atomic<int>& worst) -> task<long> {
        std::vector<join_handle<int>> hs;
        for (int i = 0; i < requests; ++i) {
          hs.push_back(spawn([](gate& g, int i, std::atomic<int>& running, std::atomic<int>& worst) -> task<int> {
            co_return co_await g.run([i, &running, &worst] {
              const int now = running.fetch_add(1) + 1;
              int seen = worst.load();
              while (now > seen && !worst.compare_exchange_weak(seen, now)) {
              }
              std::this_thread::sleep_for(200us);
              running.fetch_sub(1);
              return i;
            });
          }(g, i, running, worst)));
        }
        long sum = 0;
        for (auto& h : hs) sum += co_await h;
        co_return sum;
      }(g, requests, running, worst));
  EXPECT_EQ(total, static_cast<long>(requests) * (requests - 1) / 2);
  EXPECT_LE(worst.load(), static_cast<int>(permits));
  const auto m = g.metrics();
  EXPECT_EQ(m.completed, static_cast<std::uint64_t>(requests));
  EXPECT_EQ(m.in_flight, 0U);
  EXPECT_EQ(m.waiting, 0U);
  EXPECT_EQ(g.available(), permits);
}

// Takes a gate's only permit with work that runs until `release`; returns
// the holder's handle once that work is running.
task<join_handle<void>> hold_the_only_permit(gate& g, std::atomic<bool>& release) {
  auto holder = spawn([](gate& g, std::atomic<bool>& release) -> task<void> {
    co_await g.run([&release] {
      while (!release.load()) std::this_thread::sleep_for(100us);
    });
  }(g, release));
  while (g.metrics().in_flight == 0) co_await sleep(100us);
  co_return holder;
}

TEST(Gate, OfOneRunsOneAtATime) { bound_holds(1, 40); }
TEST(Gate, OfSixtyFourRunsThemAll) { bound_holds(64, 200); }

TEST(Gate, TryRunForShedsWithBusyAndLeavesNothingQueued) {
  auto pool = compute::pool::builder().threads(1).build();
  auto rt = runtime::multi_thread().worker_threads(1).build();
  gate g(pool, 1);
  rt.block_on([](gate& g) -> task<void> {
    std::atomic<bool> release{false};
    auto holder = co_await hold_the_only_permit(g, release);
    auto r = co_await g.try_run_for(2ms, [] { return 1; });
    EXPECT_FALSE(r.has_value());
    EXPECT_EQ(g.metrics().shed, 1U);
    EXPECT_EQ(g.metrics().waiting, 0U);  // the shed caller left the queue
    release = true;
    co_await holder;
    auto ok = co_await g.try_run_for(1s, [] { return 2; });
    EXPECT_TRUE(ok.has_value());
    EXPECT_EQ(ok.value(), 2);
  }(g));
  const auto m = g.metrics();
  EXPECT_EQ(m.completed, 2U);
  EXPECT_GT(m.waited.count(), 0);
  EXPECT_GT(m.ran.count(), 0);
}

// try_run_for(hours::max()) waits for a permit as long as it takes: a
// deadline past the clock's range is "never", not an overflow.
TEST(Gate, TryRunForWithoutALimitWaitsForAPermit) {
  auto pool = compute::pool::builder().threads(1).build();
  auto rt = runtime::multi_thread().worker_threads(1).build();
  gate g(pool, 1);
  rt.block_on([](gate& g) -> task<void> {
    std::atomic<bool> release{false};
    auto holder = co_await hold_the_only_permit(g, release);
    auto waiter = spawn(g.try_run_for(std::chrono::hours::max(), [] { return 3; }));
    while (g.metrics().waiting == 0) co_await sleep(100us);
    co_await sleep(2ms);
    EXPECT_FALSE(waiter.is_finished());
    release = true;
    co_await holder;
    auto r = co_await waiter;
    EXPECT_TRUE(r.has_value() && r.value() == 3);
  }(g));
  EXPECT_EQ(g.metrics().shed, 0U);
  EXPECT_EQ(g.metrics().completed, 2U);
}

TEST(Gate, FailuresAreCountedAndRethrown) {
  auto pool = compute::pool::builder().threads(1).build();
  auto rt = runtime::multi_thread().worker_threads(1).build();
  gate g(pool, 2);
  EXPECT_THROW(rt.block_on([](gate& g) -> task<void> {
    co_await g.run([]() -> int { throw std::length_error("too long"); });
  }(g)),
               std::length_error);
  EXPECT_EQ(g.metrics().failed, 1U);
  EXPECT_EQ(g.available(), 2U);
}

TEST(Gate, DestroyedWhileTasksWaitTheyGetGateClosed) {
  // Tasks wait for the only permit in run() and try_run_for(); the gate
  // goes away; each gets gate_closed (not a read of the freed gate), and
  // the work it had admitted runs to its end.
  auto pool = compute::pool::builder().threads(1).build();
  auto rt = runtime::multi_thread().worker_threads(1).build();
  rt.block_on([](compute::pool& pool) -> task<void> {
    auto g = std::make_unique<gate>(pool, 1);
    std::atomic<bool> release{false};
    auto holder = co_await hold_the_only_permit(*g, release);
    auto run_waiter = spawn(g->run([] { return 1; }));
    auto try_waiter = spawn(g->try_run_for(std::chrono::hours(1), [] { return 2; }));
    while (g->metrics().waiting < 2) co_await sleep(100us);
    g.reset();
    EXPECT_THROW((void)co_await run_waiter, gate_closed);
    EXPECT_THROW((void)co_await try_waiter, gate_closed);
    release = true;
    co_await holder;
  }(pool));
}

TEST(Gate, ZeroPermitsIsAConfigError) {
  auto pool = compute::pool::builder().threads(1).build();
  EXPECT_THROW(gate(pool, 0), config_error);
}

}  // namespace
}  // namespace lanes
