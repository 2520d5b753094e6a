// when_all / when_any: results in order, the first failure rethrown with its
// type after the others were cancelled, the winner and the losers' fate.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include <lanes/compose/when_all.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

task<int> after(std::chrono::microseconds d, int v) {
  co_await sleep(d);
  co_return v;
}
task<void> fail_after(std::chrono::microseconds d) {
  co_await sleep(d);
  throw std::out_of_range("boom");
}
// Counts its frame's destruction, so a test can see that cancellation completed.
struct count_exit {
  std::atomic<int>& n;
  ~count_exit() { n.fetch_add(1); }
};
// Sleepers that entered their body (and so will count their exit), and
// those whose frames are gone. A child cancelled before its first poll has
// no count_exit yet: the branch that ends a race waits for `started`, or a
// worker the host held back for 200 us would make the count come out short.
struct tally {
  std::atomic<int> started{0};
  std::atomic<int> exited{0};
};
task<int> sleeper(tally& t) {
  count_exit c{t.exited};
  t.started.fetch_add(1);
  co_await sleep(1h);
  co_return 0;
}
// Returns (or throws) once `n` sleepers have started and `d` has passed.
task<int> after_started(tally& t, int n, std::chrono::microseconds d, int v) {
  do {
    co_await sleep(d);
  } while (t.started.load() < n);
  co_return v;
}
task<void> fail_after_started(tally& t, int n, std::chrono::microseconds d) {
  (void)co_await after_started(t, n, d, 0);
  throw std::out_of_range("boom");
}

TEST(WhenAll, ReturnsEveryResultInArgumentOrder) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  auto [a, b, c] = rt.block_on(when_all(
      after(300us, 1), []() -> task<std::string> { co_return "two"; }(), []() -> task<void> { co_return; }()));
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, "two");
  (void)c;
  std::vector<task<int>> many;
  for (int i = 0; i < 50; ++i) many.push_back(after(std::chrono::microseconds((50 - i) * 10), i));
  auto all = rt.block_on(when_all(std::move(many)));
  ASSERT_EQ(all.size(), 50U);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(all[static_cast<std::size_t>(i)], i);
}

TEST(WhenAll, TheFirstFailureCancelsTheRestAndKeepsItsType) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  tally t;
  EXPECT_THROW((void)rt.block_on(when_all(sleeper(t), fail_after_started(t, 2, 200us), sleeper(t))), std::out_of_range);
  EXPECT_EQ(t.exited.load(), 2);  // both sleepers were cancelled before when_all threw
}

TEST(WhenAll, WaitRestLetsTheOthersFinish) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  std::atomic<int> finished{0};
  auto slow = [](std::atomic<int>& finished) -> task<int> {
    co_await sleep(2ms);
    finished.fetch_add(1);
    co_return 1;
  };
  EXPECT_THROW((void)rt.block_on(when_all(on_failure::wait_rest, slow(finished), fail_after(100us))),
               std::out_of_range);
  EXPECT_EQ(finished.load(), 1);
}

TEST(WhenAny, TheFirstToFinishWinsAndTheLosersAreGoneBeforeItReturns) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  tally t;
  auto r = rt.block_on(when_any(sleeper(t), after_started(t, 2, 200us, 5), sleeper(t)));
  EXPECT_EQ(r.index(), 1U);
  EXPECT_EQ(std::get<1>(r), 5);
  EXPECT_EQ(t.exited.load(), 2);
  std::vector<task<int>> racers;
  racers.push_back(after(std::chrono::microseconds(3'600'000'000LL), 0));
  racers.push_back(after(100us, 1));
  racers.push_back(after(std::chrono::microseconds(3'600'000'000LL), 2));
  auto [index, value] = rt.block_on(when_any(std::move(racers)));
  EXPECT_EQ(index, 1U);
  EXPECT_EQ(value, 1);
}

TEST(WhenAny, AFailureThatComesFirstIsRethrown) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  tally t;
  EXPECT_THROW((void)rt.block_on(when_any(sleeper(t), fail_after_started(t, 1, 100us))), std::out_of_range);
  EXPECT_EQ(t.exited.load(), 1);
  EXPECT_THROW((void)rt.block_on(when_any(std::vector<task<int>>{})), std::invalid_argument);
}

TEST(WhenAll, ACancelledCallerAbortsItsChildren) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  tally t;
  auto h = rt.spawn(when_all(sleeper(t), sleeper(t)));
  while (t.started.load() < 2) rt.block_on([]() -> task<void> { co_await sleep(100us); }());
  h.abort();
  rt.block_on([](join_handle<std::tuple<int, int>>& h) -> task<void> {
    try {
      (void)co_await h;
    } catch (const task_cancelled&) {
    }
  }(h));
  while (t.exited.load() < 2) {  // the children finish cancelling on the workers (no deadline: CTest's timeout)
    rt.block_on([]() -> task<void> { co_await sleep(100us); }());
  }
  EXPECT_EQ(t.exited.load(), 2);
}

}  // namespace
}  // namespace lanes
