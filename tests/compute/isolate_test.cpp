// isolate: a worker waiting inside an isolated region never runs outside
// work (the Rayon #592 deadlock), on its own thread or on a thief's.
#include <lanes/compute/isolate.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include <lanes/compute/join.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/compute/scope.hpp>

namespace lanes::compute {
namespace {

thread_local int held_here = 0;  // outer jobs in progress on this thread

void busy_tree(int depth) {
  if (depth == 0) {
    volatile int x = 0;
    for (int i = 0; i < 2000; ++i) x = x + i;
    return;
  }
  join([depth] { busy_tree(depth - 1); }, [depth] { busy_tree(depth - 1); });
}

TEST(Isolate, AWaitInsideNeverRunsAnOuterJob) {
  // Each outer job holds a lock while it runs parallel work inside
  // isolate(). If a worker waiting in there picked up another outer job,
  // that job would start on a thread that already holds one: counted (and
  // with a real non-recursive mutex it would be the deadlock).
  auto p = pool::builder().threads(3).build();
  std::atomic<int> reentered{0};
  std::atomic<int> done{0};
  std::recursive_mutex lock;  // recursive only so that a violation is counted, not hung
  p.install([&] {
    scope([&](task_scope& s) {
      for (int i = 0; i < 40; ++i) {
        s.spawn([&] {
          if (held_here++ != 0) reentered.fetch_add(1);
          {
            std::lock_guard guard(lock);
            isolate([] { busy_tree(6); });
          }
          --held_here;
          done.fetch_add(1);
        });
      }
    });
  });
  EXPECT_EQ(done.load(), 40);
  EXPECT_EQ(reentered.load(), 0);
}

TEST(Isolate, ReturnsTheResultAndWorksOutsideAPool) {
  EXPECT_EQ(isolate([] { return 7; }), 7);
  auto p = pool::builder().threads(2).build();
  EXPECT_EQ(p.install([] {
    return isolate([] {
      auto [a, b] = join([] { return 1; }, [] { return 2; });
      return a + b;
    });
  }),
            3);
}

}  // namespace
}  // namespace lanes::compute
