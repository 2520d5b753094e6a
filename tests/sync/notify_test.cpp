// notify: one waiter, all waiters, the stored permit, FIFO order, and a
// cancelled waiter passing its notification on.
#include <lanes/sync/notify.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/yield.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

TEST(Notify, PermitStoredWhenNobodyWaits) {
  auto rt = runtime::current_thread().build();
  notify n;
  n.notify_one();
  rt.block_on([](notify& n) -> task<void> { co_await n.notified(); }(n));  // returns at once
  SUCCEED();
}

TEST(Notify, NotifyAllWakesEveryWaiterAndStoresNothing) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  notify n;
  std::atomic<int> woken{0};
  rt.block_on([](notify& n, std::atomic<int>& woken) -> task<void> {
    std::vector<join_handle<void>> hs;
    for (int i = 0; i < 10; ++i) {
      hs.push_back(spawn([](notify& n, std::atomic<int>& w) -> task<void> {
        co_await n.notified();
        w.fetch_add(1);
      }(n, woken)));
    }
    co_await sleep(5ms);  // all waiting
    n.notify_all();
    for (auto& h : hs) co_await h;
  }(n, woken));
  EXPECT_EQ(woken.load(), 10);
  // notify_all stored no permit: a new waiter would wait.
  auto r = runtime::current_thread().build();
  const bool waited = r.block_on([](notify& n) -> task<bool> {
    auto h = spawn([](notify& n) -> task<void> { co_await n.notified(); }(n));
    co_await sleep(2ms);
    const bool still_waiting = !h.is_finished();
    h.abort();
    co_return still_waiting;
  }(n));
  EXPECT_TRUE(waited);
}

TEST(Notify, WaitersAreWokenInArrivalOrder) {
  auto rt = runtime::current_thread().build();
  notify n;
  const auto order = rt.block_on([](notify& n) -> task<std::vector<int>> {
    std::vector<int> order;
    std::vector<join_handle<void>> hs;
    for (int i = 0; i < 5; ++i) {
      hs.push_back(spawn([](notify& n, std::vector<int>& o, int i) -> task<void> {
        co_await n.notified();
        o.push_back(i);
      }(n, order, i)));
      co_await yield_now();  // let it start waiting before the next one
    }
    for (int i = 0; i < 5; ++i) {
      n.notify_one();
      co_await yield_now();
      co_await yield_now();
    }
    for (auto& h : hs) co_await h;
    co_return order;
  }(n));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(Notify, ACancelledWaiterPassesItsNotificationOn) {
  auto rt = runtime::current_thread().build();
  notify n;
  const bool second_woken = rt.block_on([](notify& n) -> task<bool> {
    auto first = spawn([](notify& n) -> task<void> { co_await n.notified(); }(n));
    auto second = spawn([](notify& n) -> task<void> { co_await n.notified(); }(n));
    co_await yield_now();  // both waiting, first in front
    n.notify_one();        // picks `first`...
    first.abort();         // ...which is cancelled before it runs
    co_await sleep(1ms);
    const bool woken = second.is_finished();
    second.abort();
    co_return woken;
  }(n));
  EXPECT_TRUE(second_woken);
}

}  // namespace
}  // namespace lanes
