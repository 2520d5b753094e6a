// semaphore and mutex: permits, fairness, close, owned permits, and
// cancellation that returns what it held.
#include <lanes/sync/semaphore.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/io/yield.hpp>
#include <lanes/sync/mutex.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

TEST(Semaphore, TryAcquireAndRaiiRelease) {
  semaphore s(2);
  {
    auto a = s.try_acquire();
    ASSERT_TRUE(a.has_value());
    auto b = s.try_acquire();
    ASSERT_TRUE(b.has_value());
    EXPECT_FALSE(s.try_acquire().has_value());
    EXPECT_EQ(s.available(), 0U);
  }
  EXPECT_EQ(s.available(), 2U);
  auto big = s.try_acquire(3);
  EXPECT_FALSE(big.has_value());
  auto forgotten = s.try_acquire(1);
  forgotten->forget();
  EXPECT_EQ(s.available(), 1U);
}

TEST(Semaphore, BoundsConcurrency) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  semaphore s(3);
  std::atomic<int> inside{0}, most{0};
  rt.block_on([](semaphore& s, std::atomic<int>& inside, std::atomic<int>& most) -> task<void> {
    std::vector<join_handle<void>> hs;
    for (int i = 0; i < 50; ++i) {
      hs.push_back(spawn([](semaphore& s, std::atomic<int>& inside, std::atomic<int>& most) -> task<void> {
        auto permit = co_await s.acquire();
        const int now = inside.fetch_add(1) + 1;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        co_await sleep(100us);
        inside.fetch_sub(1);
      }(s, inside, most)));
    }
    for (auto& h : hs) co_await h;
  }(s, inside, most));
  EXPECT_LE(most.load(), 3);
  EXPECT_EQ(s.available(), 3U);
}

TEST(Semaphore, FairToLargeRequests) {
  auto rt = runtime::current_thread().build();
  semaphore s(0);
  const auto order = rt.block_on([](semaphore& s) -> task<std::vector<int>> {
    std::vector<int> order;
    auto big = spawn([](semaphore& s, std::vector<int>& o) -> task<void> {
      auto p = co_await s.acquire(3);
      o.push_back(3);
    }(s, order));
    co_await yield_now();
    auto small = spawn([](semaphore& s, std::vector<int>& o) -> task<void> {
      auto p = co_await s.acquire(1);
      o.push_back(1);
    }(s, order));
    co_await yield_now();
    s.release(1);  // enough for `small`, but `big` is first in line
    co_await yield_now();
    EXPECT_TRUE(order.empty());
    s.release(2);  // 3 in all: `big` first, nothing left for `small`
    co_await big;  // `big` dropped its permit: now `small`
    co_await small;
    co_return order;
  }(s));
  EXPECT_EQ(order, (std::vector<int>{3, 1}));
}

TEST(Semaphore, CloseWakesWaitersWithClosed) {
  auto rt = runtime::current_thread().build();
  semaphore s(0);
  const int refused = rt.block_on([](semaphore& s) -> task<int> {
    std::vector<join_handle<bool>> hs;
    for (int i = 0; i < 5; ++i) {
      hs.push_back(spawn([](semaphore& s) -> task<bool> { co_return !(co_await s.acquire()).has_value(); }(s)));
    }
    co_await yield_now();
    s.close();
    int n = 0;
    for (auto& h : hs) n += co_await h ? 1 : 0;
    n += (co_await s.acquire()).has_value() ? 0 : 1;  // after close: at once
    co_return n;
  }(s));
  EXPECT_EQ(refused, 6);
  EXPECT_FALSE(s.try_acquire().has_value());
}

TEST(Semaphore, CancelledWaiterGivesItsPlaceAndLosesNothing) {
  auto rt = runtime::current_thread().build();
  semaphore s(1);
  rt.block_on([](semaphore& s) -> task<void> {
    auto held = co_await s.acquire();
    // Waits behind `held`, times out: leaves the queue.
    auto r = co_await timeout(1ms, s.acquire());
    EXPECT_FALSE(r.has_value());
    held.value().release();
    EXPECT_EQ(s.available(), 1U);
    // Granted while queued, then cancelled before it ran: permits return.
    auto again = co_await s.acquire();
    auto waiter = spawn([](semaphore& s) -> task<void> { auto p = co_await s.acquire(); }(s));
    co_await yield_now();     // queued
    again.value().release();  // grants the waiter...
    waiter.abort();           // ...which is cancelled before it runs
    try {
      co_await waiter;
    } catch (const task_cancelled&) {
    }
    EXPECT_EQ(s.available(), 1U);
  }(s));
}

// Adding past what a size_t counts is an error, not a wrap-around to a
// handful of permits; a permit returned on top of a full count stops there.
TEST(Semaphore, ReleasingPastTheTopIsAnOverflowError) {
  semaphore s(SIZE_MAX - 1);
  EXPECT_THROW(s.release(5), std::overflow_error);
  EXPECT_EQ(s.available(), SIZE_MAX - 1);
  s.release(1);
  EXPECT_EQ(s.available(), SIZE_MAX);
  {
    auto p = s.try_acquire(3);
    ASSERT_TRUE(p.has_value());
    s.release(3);  // the owner adds what it never had
  }
  EXPECT_EQ(s.available(), SIZE_MAX);
}

TEST(Semaphore, OwnedPermitKeepsTheSemaphoreAlive) {
  auto rt = runtime::current_thread().build();
  auto permit = rt.block_on([]() -> task<semaphore_permit> {
    auto s = std::make_shared<semaphore>(1);
    auto p = co_await semaphore::acquire_owned(s);
    co_return std::move(p.value());
  }());  // the shared_ptr in this frame is gone; the permit holds the last one
  EXPECT_EQ(permit.count(), 1U);
  permit.release();
}

TEST(Mutex, ExclusiveAndFifo) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  mutex m;
  long counter = 0;
  rt.block_on([](mutex& m, long& counter) -> task<void> {
    std::vector<join_handle<void>> hs;
    for (int i = 0; i < 20; ++i) {
      hs.push_back(spawn([](mutex& m, long& counter) -> task<void> {
        for (int k = 0; k < 100; ++k) {
          auto guard = co_await m.lock();
          const long before = counter;
          co_await yield_now();  // suspends while holding the lock
          counter = before + 1;
        }
      }(m, counter)));
    }
    for (auto& h : hs) co_await h;
  }(m, counter));
  EXPECT_EQ(counter, 2000);
  auto g = m.try_lock();
  EXPECT_TRUE(g.has_value());
  EXPECT_FALSE(m.try_lock().has_value());
}

}  // namespace
}  // namespace lanes
