// timeout() and interval: results, time-outs that cancel the operation
// completely, and stale wake-ups of the losing side being ignored.
#include <lanes/io/timeout.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>

#include <lanes/io/interval.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/sync/semaphore.hpp>

#include "destruction_counter.hpp"

namespace lanes {
namespace {

using namespace std::chrono_literals;

class TimeoutBothFlavors : public ::testing::TestWithParam<bool> {
 protected:
  runtime make() const {
    return GetParam() ? runtime::multi_thread().worker_threads(2).build() : runtime::current_thread().build();
  }
};

task<int> after(std::chrono::microseconds d, int v) {
  co_await sleep(d);
  co_return v;
}

TEST_P(TimeoutBothFlavors, FinishesInTime) {
  auto rt = make();
  auto r = rt.block_on(timeout(1s, after(100us, 7)));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 7);
}

TEST_P(TimeoutBothFlavors, TimesOutAndTheOperationIsGoneBeforeItReturns) {
  auto rt = make();
  std::atomic<int> destroyed{0};
  const bool all_gone = rt.block_on([](std::atomic<int>& destroyed) -> task<bool> {
    auto r = co_await timeout(2ms, [](test_support::destruction_counter<int> g) -> task<int> {
      co_await sleep(1h);
      (void)g;
      co_return 1;
    }(test_support::destruction_counter(destroyed)));
    EXPECT_FALSE(r.has_value());
    EXPECT_THROW(r.value(), bad_result_access);
    co_return destroyed.load() == 1;  // the inner frame is destroyed already
  }(destroyed));
  EXPECT_TRUE(all_gone);
  EXPECT_EQ(rt.metrics().timers_pending, 0U);
  EXPECT_EQ(rt.metrics().tasks_alive, 0U);
}

TEST_P(TimeoutBothFlavors, PropagatesTheOperationsException) {
  auto rt = make();
  auto failing = []() -> task<int> {
    throw std::invalid_argument("bad input");
    co_return 0;
  };
  EXPECT_THROW((void)rt.block_on(timeout(1s, failing())), std::invalid_argument);
}

TEST_P(TimeoutBothFlavors, WrapsAnyAwaitable) {
  auto rt = make();
  auto r = rt.block_on([]() -> task<bool> {
    auto slept = co_await timeout(1ms, sleep(1h));
    auto quick = co_await timeout(1s, sleep(10us));
    co_return !slept.has_value() && quick.has_value();
  }());
  EXPECT_TRUE(r);
}

TEST_P(TimeoutBothFlavors, StaleWakeupsOfTheLoserAreIgnored) {
  // Deadlines equal to the operation's duration make both sides fire
  // together, over and over. Afterwards the task sleeps: a stale wake from
  // a lost race would cut that sleep short.
  auto rt = make();
  const bool ok = rt.block_on([]() -> task<bool> {
    for (int i = 0; i < 300; ++i) {
      const auto d = std::chrono::microseconds(20 + i % 40);
      auto r = co_await timeout(d, after(d, i));
      if (r.has_value() && *r != i) co_return false;
      const auto start = clock::now();
      co_await sleep(200us);
      if (clock::now() - start < 200us) co_return false;
    }
    co_return true;
  }());
  EXPECT_TRUE(ok);
}

TEST_P(TimeoutBothFlavors, StaleWakeupsOfAnAwaitableRacedInPlaceAreIgnored) {
  // The same race with an awaitable, which timeout awaits in place (no
  // child task): the inner waker and the timer share one suspension.
  auto rt = make();
  const bool ok = rt.block_on([]() -> task<bool> {
    for (int i = 0; i < 300; ++i) {
      const auto d = std::chrono::microseconds(20 + i % 40);
      (void)co_await timeout(d, sleep(d));  // either side may win; the sleep below checks for stale wakes
      const auto start = clock::now();
      co_await sleep(200us);
      if (clock::now() - start < 200us) co_return false;
    }
    co_return true;
  }());
  EXPECT_TRUE(ok);
}

TEST_P(TimeoutBothFlavors, CancellingTheWaiterCancelsAnAwaitableAtOnce) {
  // A task waits for a permit under a long deadline and is aborted: the
  // acquire is destroyed with its frame, so a permit released afterwards
  // stays in the semaphore instead of going to a waiter that is gone.
  auto rt = make();
  semaphore sem(0);
  rt.block_on([](semaphore& sem) -> task<void> {
    auto h = spawn([](semaphore& sem) -> task<void> {
      auto got = co_await timeout(1h, sem.acquire());
      ADD_FAILURE() << "the acquire completed: " << got.has_value();
    }(sem));
    co_await sleep(1ms);  // it waits now
    h.abort();
    try {
      co_await h;
    } catch (const task_cancelled&) {
    }
    sem.release(1);
    EXPECT_EQ(sem.available(), 1U);
  }(sem));
}

TEST_P(TimeoutBothFlavors, CancellingTheWaiterAbortsATaskOperation) {
  // A task<T> runs as a child: aborting the task that awaits the timeout
  // aborts the child too instead of leaving it running detached.
  auto rt = make();
  std::atomic<bool> child_gone{false};
  rt.block_on([](std::atomic<bool>& child_gone) -> task<void> {
    auto h = spawn([](std::atomic<bool>& child_gone) -> task<void> {
      struct on_destroy {
        std::atomic<bool>& flag;
        ~on_destroy() { flag.store(true); }
      };
      (void)co_await timeout(1h, [](std::atomic<bool>& child_gone) -> task<void> {
        on_destroy guard{child_gone};
        co_await sleep(1h);
      }(child_gone));
    }(child_gone));
    co_await sleep(1ms);
    h.abort();
    try {
      co_await h;
    } catch (const task_cancelled&) {
    }
    for (int i = 0; i < 5000 && !child_gone.load(); ++i) co_await sleep(1ms);
    EXPECT_TRUE(child_gone.load());
  }(child_gone));
}

// Durations past the clock's range, either way, are pinned instead of
// overflowing: far below zero has timed out at once, far above never does.
TEST_P(TimeoutBothFlavors, DurationsBeyondTheClocksRangeAreNotAnOverflow) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    const auto long_past = co_await timeout(std::chrono::hours::min(), sleep(1h));
    EXPECT_FALSE(long_past.has_value());
    const auto negated = co_await timeout(-std::chrono::hours::max(), sleep(1h));
    EXPECT_FALSE(negated.has_value());
    const auto never = co_await timeout(std::chrono::hours::max(), sleep(1ms));
    EXPECT_TRUE(never.has_value());
  }());
}

INSTANTIATE_TEST_SUITE_P(Io, TimeoutBothFlavors, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "MultiThread" : "CurrentThread"; });

TEST(Interval, BurstCatchesUpBackToBack) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    const auto start = clock::now() - 35ms;
    interval iv(10ms, missed_tick::burst, start);
    EXPECT_EQ(co_await iv.tick(), start);
    EXPECT_EQ(co_await iv.tick(), start + 10ms);
    EXPECT_EQ(co_await iv.tick(), start + 20ms);
    EXPECT_EQ(co_await iv.tick(), start + 30ms);
    EXPECT_EQ(co_await iv.tick(), start + 40ms);  // this one waited
    EXPECT_GE(clock::now(), start + 40ms);
  }());
}

TEST(Interval, SkipDropsMissedTicks) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    const auto start = clock::now() - 35ms;
    interval iv(10ms, missed_tick::skip, start);
    EXPECT_EQ(co_await iv.tick(), start);
    EXPECT_EQ(co_await iv.tick(), start + 40ms);
  }());
}

TEST(Interval, DelayRestartsFromTheLateTick) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    const auto start = clock::now() - 35ms;
    interval iv(10ms, missed_tick::delay, start);
    EXPECT_EQ(co_await iv.tick(), start);
    const auto after_first = clock::now();
    const auto second = co_await iv.tick();
    EXPECT_GE(second, after_first + 10ms - 1ms);
    EXPECT_GE(clock::now(), second);
  }());
}

// A period past the clock's range means the next tick never comes, under
// every policy: the next deadline is pinned at time_point::max() (it used
// to wrap to a deadline in the past, and the "never" tick fired at once).
TEST(Interval, APeriodBeyondTheClocksRangeNeverTicksAgain) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    for (auto policy : {missed_tick::burst, missed_tick::delay, missed_tick::skip}) {
      interval iv(clock::duration::max(), policy);
      co_await iv.tick();  // the first tick is at once
      EXPECT_EQ(iv.next_deadline(), clock::time_point::max());
      auto second = co_await timeout(5ms, iv.tick());
      EXPECT_FALSE(second.has_value());
    }
  }());
}

// skip from a start at the far end of the clock: the tick after the first
// is the next one on the start's grid after now. The distance from the
// start to now does not fit a signed count of nanoseconds.
TEST(Interval, SkipFromTheStartOfTheClockLandsOnTheGridAfterNow) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    const auto start = clock::time_point::min();
    interval iv(7ms, missed_tick::skip, start);
    const auto before = clock::now();
    EXPECT_EQ(co_await iv.tick(), start);
    const auto after = clock::now();
    // The tick reads the clock between these two: the next tick is after
    // what it read, and at most a period later.
    const auto next = iv.next_deadline();
    EXPECT_GT(next, before);
    EXPECT_LE(next, after + 7ms);
    const auto from_start = static_cast<std::uint64_t>(next.time_since_epoch().count()) -
                            static_cast<std::uint64_t>(start.time_since_epoch().count());
    EXPECT_EQ(from_start % static_cast<std::uint64_t>(clock::duration(7ms).count()), 0U);
    EXPECT_EQ(co_await iv.tick(), next);
  }());
}

// Two tasks sharing one interval: the second tick awaited while the first
// waits is refused (advancing the schedule beside the first would be a
// data race on two workers). Once the first waiter is gone - here aborted -
// the interval ticks again, its schedule untouched.
TEST(Interval, ASecondTaskAwaitingATickIsMisuse) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    const auto start = clock::now() + 1h;
    interval iv(10ms, missed_tick::burst, start);
    auto waiter = spawn([](interval& shared) -> task<void> { co_await shared.tick(); }(iv));
    co_await sleep(1ms);  // one thread: the waiter has run to its tick
    EXPECT_THROW(co_await iv.tick(), runtime_misuse);
    waiter.abort();
    EXPECT_THROW(co_await waiter, task_cancelled);
    EXPECT_EQ(iv.next_deadline(), start);
    auto late = co_await timeout(5ms, iv.tick());  // held again, and waits for its deadline
    EXPECT_FALSE(late.has_value());
  }());
}

// Two tasks on two workers ticking one interval whose ticks are all due:
// each tick is either taken (and advances the schedule once) or refused, so
// the schedule ends exactly as many periods on as there were ticks. Run
// under TSan, it also checks that the hold orders one worker's advance
// before the next holder's read.
TEST(Interval, TicksSharedAcrossWorkersAdvanceTheScheduleOnceEach) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  rt.block_on([]() -> task<void> {
    const auto start = clock::now() - 1h;
    interval iv(1us, missed_tick::burst, start);
    std::atomic<int> ticks{0};
    std::atomic<int> refused{0};
    auto ticker = [](interval& shared, std::atomic<int>& ticked, std::atomic<int>& refusals) -> task<void> {
      for (int i = 0; i < 2000; ++i) {
        try {
          co_await shared.tick();
          ticked.fetch_add(1, std::memory_order_relaxed);
        } catch (const runtime_misuse&) {
          refusals.fetch_add(1, std::memory_order_relaxed);
        }
      }
    };
    auto a = spawn(ticker(iv, ticks, refused));
    auto b = spawn(ticker(iv, ticks, refused));
    co_await a;
    co_await b;
    EXPECT_EQ(ticks.load() + refused.load(), 4000);
    EXPECT_GT(ticks.load(), 0);
    EXPECT_EQ(iv.next_deadline(), start + ticks.load() * 1us);
  }());
}

// The same task holding one tick cannot await a second one either.
TEST(Interval, ATickAwaitedWhileAnotherIsHeldIsMisuse) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    const auto start = clock::now() - 35ms;
    interval iv(10ms, missed_tick::burst, start);
    {
      auto held = iv.tick();
      EXPECT_THROW(co_await iv.tick(), runtime_misuse);
      EXPECT_EQ(co_await std::move(held), start);
    }
    EXPECT_EQ(co_await iv.tick(), start + 10ms);
  }());
}

// A pending tick refers to its interval: moving either side of a move
// while one is pending is refused (after a move the tick would advance, or
// outlive, the interval it was taken from).
TEST(Interval, MovingAnIntervalWhileATickIsPendingIsMisuse) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    const auto start = clock::now() - 35ms;
    interval iv(10ms, missed_tick::burst, start);
    interval other(1ms);
    {
      auto held = iv.tick();
      EXPECT_THROW((void)interval(std::move(iv)), runtime_misuse);
      EXPECT_THROW(other = std::move(iv), runtime_misuse);
      EXPECT_THROW(iv = std::move(other), runtime_misuse);
      EXPECT_EQ(other.period(), 1ms);  // a refused move moves nothing
      EXPECT_EQ(co_await std::move(held), start);
    }
    interval moved(std::move(iv));  // no tick pending: fine
    EXPECT_EQ(co_await moved.tick(), start + 10ms);
  }());
}

TEST(Interval, RejectsANonPositivePeriod) {
  EXPECT_THROW(interval(0ms), config_error);
  EXPECT_THROW(interval(-1ms), config_error);
}

}  // namespace
}  // namespace lanes
