// Timers through the runtime: ordering, zero and past deadlines, cancellation.
#include <lanes/io/sleep.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include <lanes/io/runtime.hpp>
#include <lanes/io/yield.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

// A frame that only sleeps (the S3 sleeper: the coroutine's two pointers,
// its promise and this awaiter) must fit a 128-byte block of the frame
// allocator; one byte more and every sleeping task takes 192.
static_assert(sizeof(sleep_awaiter) <= 64, "sleep_awaiter grew: S3's sleeping frame no longer fits 128 bytes");

class SleepBothFlavors : public ::testing::TestWithParam<bool> {
 protected:
  runtime make() const {
    return GetParam() ? runtime::multi_thread().worker_threads(2).build() : runtime::current_thread().build();
  }
};

TEST_P(SleepBothFlavors, NeverFiresEarly) {
  auto rt = make();
  auto elapsed = rt.block_on([]() -> task<clock::duration> {
    const auto start = clock::now();
    co_await sleep(3ms);
    co_return clock::now() - start;
  }());
  EXPECT_GE(elapsed, 3ms);
}

TEST_P(SleepBothFlavors, SleepUntilThePastAndZeroReturn) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    co_await sleep(0ms);
    co_await sleep(-5ms);
    co_await sleep_until(clock::now() - 1s);
  }());
  SUCCEED();
}

// Whether a deadline has passed is the wheel's to say (sleep.hpp): a
// sleep(d <= 0), and a sleep_until a deadline the wheel has passed, resume
// without suspending - the task is not polled again.
TEST(Sleep, DueDeadlinesDoNotSuspend) {
  auto rt = runtime::current_thread().build();
  const auto polls = [&rt] { return rt.metrics().per_worker.at(0).polls; };
  rt.block_on([](const auto& polls) -> task<void> {
    co_await sleep(1ms);  // the wheel's time is now past this deadline
    const auto before = polls();
    for (int i = 0; i < 5; ++i) co_await sleep(0ms);
    co_await sleep(-3ms);
    co_await sleep_until(clock::now() - 1s);
    EXPECT_EQ(polls(), before);
    co_await sleep(1ms);  // a deadline ahead does suspend
    EXPECT_GT(polls(), before);
  }(polls));
}

TEST(Sleep, OneThreadWakesInDeadlineOrder) {
  // On one thread, timers that come due together are woken in deadline
  // order. (On several workers, tasks woken together may run in either
  // order.) The deadlines are absolute; once all five timers are set, the
  // only thread is held past every deadline, so they are all due at the
  // next look. A run in which the thread was held up before the timers
  // were all set (then one may fire on its own) tests nothing: it is run
  // again. Relative sleeps would make the test pass on timing: timers
  // found due together in a coarse slot of the wheel come out in list
  // order unless the wheel sorts them.
  for (int attempt = 0; attempt < 20; ++attempt) {
    auto rt = runtime::current_thread().build();
    std::vector<int> order;
    bool set_in_time = false;
    rt.block_on([](std::vector<int>& order, bool& set_in_time) -> task<void> {
      const auto base = clock::now() + 5ms;
      std::vector<join_handle<void>> hs;
      for (int i : {5, 1, 4, 2, 3}) {
        hs.push_back(spawn([](int i, clock::time_point deadline, std::vector<int>& order) -> task<void> {
          co_await sleep_until(deadline);
          order.push_back(i);
        }(i, base + i * 300us, order)));
      }
      co_await yield_now();  // the five are ahead in the queue: each sets its timer
      set_in_time = clock::now() < base;
      std::this_thread::sleep_until(base + 2ms);  // past every deadline, holding the thread
      for (auto& h : hs) co_await h;
    }(order, set_in_time));
    if (!set_in_time) continue;
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5}));
    return;
  }
  FAIL() << "in 20 attempts the five timers were never all set within 5 ms";
}

TEST_P(SleepBothFlavors, ManyTimersAllFire) {
  auto rt = make();
  const int fired = rt.block_on([]() -> task<int> {
    std::vector<join_handle<int>> hs;
    for (int i = 0; i < 5000; ++i) {
      hs.push_back(spawn([](int i) -> task<int> {
        co_await sleep(std::chrono::microseconds(100 * (i % 50)));
        co_return 1;
      }(i)));
    }
    int n = 0;
    for (auto& h : hs) n += co_await h;
    co_return n;
  }());
  EXPECT_EQ(fired, 5000);
  EXPECT_EQ(rt.metrics().timers_pending, 0U);
}

TEST_P(SleepBothFlavors, FarFutureTimersDoNotOverflow) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    auto h = spawn([]() -> task<void> { co_await sleep(std::chrono::hours::max()); }());
    auto h2 = spawn([]() -> task<void> { co_await sleep_until(clock::time_point::max()); }());
    co_await sleep(1ms);
    EXPECT_FALSE(h.is_finished());
    h.abort();
    h2.abort();
    EXPECT_THROW(co_await h, task_cancelled);
    EXPECT_THROW(co_await h2, task_cancelled);
  }());
  EXPECT_EQ(rt.metrics().timers_pending, 0U);
}

// deadline_after pins what does not fit the clock instead of overflowing:
// past its top is "never", far below zero long past, whatever the
// duration's representation (a NaN count is "never").
TEST(Sleep, DeadlinesBeyondTheClocksRangeArePinned) {
  using seconds_d = std::chrono::duration<double>;
  EXPECT_EQ(deadline_after(std::chrono::hours::max()), clock::time_point::max());
  EXPECT_EQ(deadline_after(std::chrono::nanoseconds::max()), clock::time_point::max());
  EXPECT_EQ(deadline_after(std::chrono::duration<int, std::ratio<86400 * 365>>(1000)), clock::time_point::max());
  EXPECT_EQ(deadline_after(seconds_d(1e300)), clock::time_point::max());
  EXPECT_EQ(deadline_after(seconds_d(std::numeric_limits<double>::quiet_NaN())), clock::time_point::max());
  // now + the clock's most negative duration: before the clock's epoch,
  // where an overflow would have wrapped far into the future.
  const clock::time_point epoch{};
  EXPECT_LT(deadline_after(std::chrono::hours::min()), epoch);
  EXPECT_LT(deadline_after(-std::chrono::hours::max()), epoch);
  EXPECT_LT(deadline_after(seconds_d(-1e300)), epoch);
  const auto before = clock::now();
  const auto in_a_second = deadline_after(seconds_d(1.0));
  EXPECT_GE(in_a_second, before + 1s);
  EXPECT_LE(in_a_second, clock::now() + 1s);
}

static_assert(detail::saturated_add(clock::time_point::max() - 1ns, 2ns) == clock::time_point::max());
static_assert(detail::saturated_add(clock::time_point::min() + 1ns, -2ns) == clock::time_point::min());
static_assert(detail::saturated_add(clock::time_point(5ns), -3ns) == clock::time_point(2ns));
static_assert(detail::saturated_duration(std::chrono::duration<float>(1e30F)) == clock::duration::max());

INSTANTIATE_TEST_SUITE_P(Io, SleepBothFlavors, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "MultiThread" : "CurrentThread"; });

}  // namespace
}  // namespace lanes
