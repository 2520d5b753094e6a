// std::bad_alloc at the hand-offs between lanes leaves every count, permit
// and task as it was and reaches only the caller. This binary replaces the
// global operator new: while a test arms it, allocations of one size on the
// arming thread fail - the size of a std::deque node of the queue under
// test, so that a push that must grow the queue fails (the compute pool's
// injector; the blocking pool's queue), and nothing else does (the tasks
// are spawned before it is armed; an offload's state is smaller).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <new>
#include <thread>
#include <vector>

#include <lanes/blocking/blocking_pool.hpp>
#include <lanes/bridge/gate.hpp>
#include <lanes/bridge/offload.hpp>
#include <lanes/compute/detail/job.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/io/yield.hpp>
#include <lanes/sync/notify.hpp>

#include "pool_plug.hpp"
#include "sanitized_build.hpp"

namespace {

thread_local std::size_t failing_size = 0;  // 0: nothing fails

}  // namespace

// The sanitizers' runtimes define operator new themselves (clang links
// them statically: a second definition does not link), so there the
// tests skip.
#if !LANES_TSAN && !LANES_ASAN
void* operator new(std::size_t size) {
  if (failing_size != 0 && size == failing_size) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace lanes {
namespace {

using namespace std::chrono_literals;

// The bytes of one node of a std::deque<T> in libstdc++ (512-byte buffers,
// or one element when larger). The tests check that something failed, so
// a different layout shows as a test failure, not a silent pass.
template <class T>
constexpr std::size_t deque_node_bytes() {
  return (sizeof(T) < 512 ? 512 / sizeof(T) : 1) * sizeof(T);
}

class HandoffOutOfMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (detail::sanitized_build) GTEST_SKIP() << "the sanitizers' own operator new cannot be replaced here";
  }
};

struct armed {
  explicit armed(std::size_t size) { failing_size = size; }
  armed(const armed&) = delete;
  armed& operator=(const armed&) = delete;
  ~armed() { failing_size = 0; }
};

constexpr int attempts = 300;  // several nodes' worth of queue entries

TEST_F(HandoffOutOfMemory, AGateWhoseInjectorCannotGrowGivesThePermitBack) {
  auto pool = compute::pool::builder().threads(1).build();
  testing_support::pool_plug p;
  p.hold(pool);
  auto rt = runtime::current_thread().build();  // the tasks run on this thread, armed
  gate g(pool, 1000);
  const int failed = rt.block_on([](gate& g, testing_support::pool_plug& p) -> task<int> {
    std::vector<join_handle<int>> hs;
    hs.reserve(attempts);
    for (int i = 0; i < attempts; ++i) hs.push_back(spawn(g.run([i] { return i; })));
    const auto refused_now = [&hs] {
      int n = 0;
      for (auto& h : hs) n += h.is_finished() ? 1 : 0;
      return n;
    };
    {
      // Until every task has taken a permit and handed its work over (or
      // failed to): some wait in the runtime's global queue a while.
      armed fail(deque_node_bytes<compute::detail::job*>());
      for (int i = 0; i < 10'000 && g.metrics().in_flight + static_cast<std::uint64_t>(refused_now()) < attempts; ++i) {
        co_await yield_now();
      }
    }
    const int refused = refused_now();
    const auto admitted = static_cast<std::uint64_t>(attempts - refused);
    EXPECT_EQ(g.metrics().in_flight, admitted);
    EXPECT_EQ(g.available(), 1000 - admitted);
    EXPECT_EQ(g.metrics().dropped, 0U);
    p.release = true;
    int threw = 0;
    for (int i = 0; i < attempts; ++i) {
      try {
        EXPECT_EQ(co_await hs[static_cast<std::size_t>(i)], i);
      } catch (const std::bad_alloc&) {
        ++threw;
      }
    }
    EXPECT_EQ(threw, refused);
    co_return refused;
  }(g, p));
  EXPECT_GT(failed, 0) << "the injector never had to grow: nothing was tested";
  EXPECT_EQ(g.available(), 1000U);
  EXPECT_EQ(g.metrics().in_flight, 0U);
  EXPECT_EQ(g.metrics().completed, static_cast<std::uint64_t>(attempts - failed));
}

TEST_F(HandoffOutOfMemory, ADetachedSpawnThatCannotBeQueuedIsNotWaitedFor) {
  auto pool = std::make_unique<compute::pool>(compute::pool::builder().threads(1).build());
  testing_support::pool_plug p;
  p.hold(*pool);
  std::atomic<int> ran{0};
  int refused = 0;
  {
    armed fail(deque_node_bytes<compute::detail::job*>());
    for (int i = 0; i < attempts; ++i) {
      try {
        pool->spawn([&ran] { ran.fetch_add(1); });
      } catch (const std::bad_alloc&) {
        ++refused;
      }
    }
  }
  EXPECT_GT(refused, 0) << "the injector never had to grow: nothing was tested";
  p.release = true;
  // The pool's destructor waits for its detached jobs: a refused one that
  // stayed counted would hold it for good.
  auto destroyed = std::async(std::launch::async, [&pool] { pool.reset(); });
  EXPECT_EQ(destroyed.wait_for(10s), std::future_status::ready);
  destroyed.wait();
  EXPECT_EQ(ran.load(), attempts - refused);
}

TEST_F(HandoffOutOfMemory, ABlockingOffloadThatCannotBeQueuedThrowsAndNothingWakesTheTaskLater) {
  auto rt = runtime::current_thread().blocking_threads(1).build();
  std::atomic<bool> release{false};
  rt.blocking().submit(detail::blocking_job(
      [&release] {
        while (!release.load()) std::this_thread::sleep_for(100us);
      },
      "plug", source_location::current()));
  std::atomic<int> failed{0};
  const int refused =
      rt.block_on([](blocking_pool& pool, std::atomic<bool>& release, std::atomic<int>& failed) -> task<int> {
        std::vector<join_handle<int>> hs;
        hs.reserve(attempts);
        for (int i = 0; i < attempts; ++i) {
          hs.push_back(spawn([](int i, std::atomic<int>& failed) -> task<int> {
            try {
              co_return co_await offload_blocking([i] { return i; });
            } catch (const std::bad_alloc&) {
              failed.fetch_add(1);
            }
            // Refused: nothing of the dropped hand-off may wake this task at its
            // next suspension (that resumed a race with no branch fired).
            notify never;
            auto r = co_await timeout(2ms, never.notified());
            EXPECT_FALSE(r.has_value());
            co_return -1;
          }(i, failed)));
        }
        {
          armed fail(deque_node_bytes<detail::blocking_job>());
          // Until each task has handed its job over, or failed to.
          for (int i = 0; i < 10'000 && pool.metrics().queue_depth + static_cast<std::size_t>(failed.load()) < attempts;
               ++i) {
            co_await yield_now();
          }
        }
        release = true;
        int failures = 0;
        for (int i = 0; i < attempts; ++i) {
          const int got = co_await hs[static_cast<std::size_t>(i)];
          if (got == -1) {
            ++failures;
          } else {
            EXPECT_EQ(got, i);
          }
        }
        co_return failures;
      }(rt.blocking(), release, failed));
  EXPECT_GT(refused, 0) << "the blocking queue never had to grow: nothing was tested";
  EXPECT_EQ(rt.metrics().blocking.queue_depth, 0U);
}

}  // namespace
}  // namespace lanes
