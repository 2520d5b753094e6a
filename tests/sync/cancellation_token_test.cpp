// cancellation_token: the tree (children cancelled with their parent, not
// the other way), waiters woken from any thread, handles dropped in any order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/sync/cancellation_token.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

TEST(CancellationToken, ChildrenFollowTheirParentButNotTheOtherWay) {
  cancellation_token root;
  auto a = root.child();
  auto a1 = a.child();
  auto b = root.child();
  a1.cancel();
  EXPECT_TRUE(a1.is_cancelled());
  EXPECT_FALSE(a.is_cancelled());
  EXPECT_FALSE(root.is_cancelled());
  root.cancel();
  EXPECT_TRUE(a.is_cancelled());
  EXPECT_TRUE(b.is_cancelled());
  EXPECT_TRUE(root.child().is_cancelled());  // born cancelled
  root.cancel();                             // idempotent
}

TEST(CancellationToken, CopiesShareAStateAndHandlesMayDieInAnyOrder) {
  auto child = [] {
    cancellation_token root;
    auto c = root.child();
    auto copy = c;
    root.cancel();
    return copy;  // the parent handle dies here; the child keeps its state
  }();
  EXPECT_TRUE(child.is_cancelled());
  cancellation_token root;
  { auto short_lived = root.child(); }
  root.cancel();  // the dead child unlinked itself
  EXPECT_TRUE(root.is_cancelled());
}

TEST(CancellationToken, CancelledWakesEveryWaiterFromAnotherThread) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  cancellation_token root;
  auto leaf = root.child().child();
  std::atomic<int> woken{0};
  std::vector<join_handle<void>> waiters;
  for (int i = 0; i < 200; ++i) {
    waiters.push_back(rt.spawn([](cancellation_token t, std::atomic<int>& woken) -> task<void> {
      co_await t.cancelled();
      woken.fetch_add(1);
    }(i % 2 == 0 ? root : leaf, woken)));
  }
  std::thread canceller([&] {
    std::this_thread::sleep_for(1ms);
    root.cancel();
  });
  canceller.join();
  for (auto& w : waiters) rt.block_on([](join_handle<void>& h) -> task<void> { co_await h; }(w));
  EXPECT_EQ(woken.load(), 200);
}

TEST(CancellationToken, ATaskAbortedWhileWaitingLeavesTheQueue) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  cancellation_token token;
  auto waiter = rt.spawn([](cancellation_token t) -> task<void> { co_await t.cancelled(); }(token));
  rt.block_on([]() -> task<void> { co_await sleep(200us); }());
  waiter.abort();
  rt.block_on([](join_handle<void>& h) -> task<void> {
    bool cancelled = false;
    try {
      co_await h;
    } catch (const task_cancelled&) {
      cancelled = true;
    }
    EXPECT_TRUE(cancelled);
  }(waiter));
  token.cancel();  // nothing left to wake: must not touch the dead waiter
}

TEST(CancellationToken, ManyThreadsCancelAndBranchAtOnce) {
  for (int round = 0; round < 50; ++round) {
    cancellation_token root;
    std::vector<cancellation_token> made(64);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int i = t; i < 64; i += 4) {
          made[static_cast<std::size_t>(i)] = (i % 3 == 0 ? root : root.child()).child();
          if (i == 33) root.cancel();
        }
      });
    }
    for (auto& th : threads) th.join();
    for (auto& m : made) EXPECT_TRUE(m.is_cancelled());
  }
}

// A token is a shared handle: moving one copies it, so the moved-from
// token is still the same token (not an empty one on which every call
// would dereference nothing).
TEST(CancellationToken, AMovedFromTokenIsStillTheToken) {
  cancellation_token token;
  cancellation_token moved = std::move(token);
  cancellation_token assigned;
  assigned = std::move(moved);
  EXPECT_FALSE(token.is_cancelled());  // NOLINT(bugprone-use-after-move): the point of the test
  assigned.cancel();
  EXPECT_TRUE(token.is_cancelled());
  EXPECT_TRUE(moved.is_cancelled());  // NOLINT(bugprone-use-after-move): the point of the test
}

}  // namespace
}  // namespace lanes
