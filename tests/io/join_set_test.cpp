// join_set: results in completion order, failures and cancellations
// reported per member, abort on destruction, no result lost when the
// waiting task itself is cancelled.
#include <lanes/io/join_set.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include <lanes/compose/select.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>

#include "address_space_cap.hpp"
#include "destruction_counter.hpp"
#include "sanitized_build.hpp"

namespace lanes {
namespace {

using namespace std::chrono_literals;

task<int> after(std::chrono::milliseconds d, int v) {
  co_await sleep(d);
  co_return v;
}

class JoinSetBothFlavors : public ::testing::TestWithParam<bool> {
 protected:
  runtime make() const {
    return GetParam() ? runtime::multi_thread().worker_threads(2).build() : runtime::current_thread().build();
  }
};

TEST_P(JoinSetBothFlavors, ResultsArriveInCompletionOrder) {
  auto rt = make();
  auto order = rt.block_on([]() -> task<std::vector<int>> {
    join_set<int> set;
    set.spawn(after(30ms, 3));
    set.spawn(after(1ms, 1));
    set.spawn(after(15ms, 2));
    std::vector<int> got;
    while (auto v = co_await set.join_next()) got.push_back(*v);
    EXPECT_TRUE(set.empty());
    co_return got;
  }());
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_P(JoinSetBothFlavors, FailuresAndCancellationsArePerMember) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    join_set<int> set;
    set.spawn([]() -> task<int> {
      throw std::out_of_range("member failed");
      co_return 0;
    }());
    set.spawn(after(2ms, 7));
    int values = 0, failures = 0;
    for (int i = 0; i < 2; ++i) {
      try {
        if (auto v = co_await set.join_next()) values += *v;
      } catch (const std::out_of_range&) {
        ++failures;
      }
    }
    EXPECT_EQ(values, 7);
    EXPECT_EQ(failures, 1);
    EXPECT_FALSE(co_await set.join_next());
  }());
}

TEST_P(JoinSetBothFlavors, DestructionAbortsMembers) {
  auto rt = make();
  std::atomic<int> finished{0};
  std::atomic<int> gone{0};
  rt.block_on([](std::atomic<int>& finished, std::atomic<int>& gone) -> task<void> {
    {
      join_set<void> set;
      for (int i = 0; i < 50; ++i) {
        // Its frame's parameters are destroyed after its sleep disarmed the timer.
        set.spawn([](std::atomic<int>& f, test_support::destruction_counter<int> g) -> task<void> {
          co_await sleep(1h);
          (void)g;
          f.fetch_add(1);
        }(finished, test_support::destruction_counter(gone)));
      }
      co_await sleep(1ms);
    }  // aborts all 50; each is destroyed when a worker next takes it
    // Wait for that, not for a fixed time: a worker of a loaded machine (or
    // a sanitizer's) may not get to the last one within milliseconds.
    for (int waited = 0; gone.load() < 50 && waited < 10'000; ++waited) co_await sleep(1ms);
  }(finished, gone));
  EXPECT_EQ(gone.load(), 50);
  EXPECT_EQ(finished.load(), 0);
  EXPECT_EQ(rt.metrics().timers_pending, 0U);  // disarmed before the frames were gone
  // A task is counted complete just after its frame is destroyed, maybe on
  // another worker still.
  for (int waited = 0; rt.metrics().tasks_alive != 0 && waited < 10'000; ++waited) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(rt.metrics().tasks_alive, 0U);
}

// A set assigned over aborts its members, as its destruction does (a
// defaulted assignment let them run on, detached).
TEST_P(JoinSetBothFlavors, AssigningOverASetAbortsItsMembers) {
  auto rt = make();
  std::atomic<int> gone{0};
  rt.block_on([](std::atomic<int>& gone) -> task<void> {
    join_set<void> set;
    for (int i = 0; i < 10; ++i) {
      set.spawn([](test_support::destruction_counter<int> g) -> task<void> {
        co_await sleep(1h);
        (void)g;
      }(test_support::destruction_counter(gone)));
    }
    co_await sleep(1ms);
    set = join_set<void>();  // the ten are aborted here
    for (int waited = 0; gone.load() < 10 && waited < 10'000; ++waited) co_await sleep(1ms);
    EXPECT_EQ(set.size(), 0U);
  }(gone));
  EXPECT_EQ(gone.load(), 10);
  EXPECT_EQ(rt.metrics().timers_pending, 0U);
}

// A spawn that is refused (an empty task, no io task to spawn from) leaves
// the set as it was: no member that never existed, which join_next would
// report as cancelled.
TEST_P(JoinSetBothFlavors, ARefusedSpawnLeavesTheSetAsItWas) {
  auto rt = make();
  join_set<int> set;
  EXPECT_THROW(set.spawn(after(1ms, 1)), runtime_misuse);  // not inside a task
  EXPECT_EQ(set.size(), 0U);
  rt.block_on([](join_set<int>& set) -> task<void> {
    EXPECT_THROW(set.spawn(task<int>()), runtime_misuse);
    EXPECT_EQ(set.size(), 0U);
    EXPECT_FALSE(co_await set.join_next());  // nothing: not a cancelled member
    set.spawn(after(1ms, 5));
    const auto v = co_await set.join_next();
    EXPECT_EQ(v, std::optional<int>(5));
  }(set));
}

// The address space capped just above what the process maps: a spawn
// whose task header or wrapper frame cannot be allocated throws
// std::bad_alloc, and the set is as it was. A wrapper made (and counted)
// before the header is allocated, then destroyed unstarted, would record a
// cancelled member: a phantom that join_next reports as task_cancelled. The tasks are made before the cap,
// so that the allocations that fail are the spawn's own.
task<int> one() { co_return 1; }

TEST(JoinSet, ASpawnThatRunsOutOfMemoryLeavesTheSetAsItWas) {
  if (detail::sanitized_build) GTEST_SKIP() << "the sanitizers reserve terabytes of address space: no cap fits";
  auto rt = runtime::current_thread().build();  // nothing runs while the cap is on
  rt.block_on([]() -> task<void> {
    std::vector<task<int>> made;
    made.reserve(200'000);
    for (int i = 0; i < 200'000; ++i) made.push_back(one());
    join_set<int> set;
    testing_support::address_space_cap cap(std::size_t{1} << 20);
    if (!cap.applied()) {
      ADD_FAILURE() << "cannot cap the address space";
      co_return;
    }
    std::size_t spawned = 0;
    int refused = 0;
    for (auto& t : made) {
      try {
        set.spawn(std::move(t));
        ++spawned;
      } catch (const std::bad_alloc&) {
        if (++refused == 3) break;  // the next ones fail the same way
      }
    }
    EXPECT_TRUE(cap.lift());
    EXPECT_EQ(refused, 3) << "the cap was never reached";
    EXPECT_EQ(set.size(), spawned);
    std::size_t values = 0, cancelled = 0;
    for (;;) {
      try {
        if (!co_await set.join_next()) break;
        ++values;
      } catch (const task_cancelled&) {
        ++cancelled;
      }
    }
    EXPECT_EQ(values, spawned);
    EXPECT_EQ(cancelled, 0U);
  }());
}

// One task at a time may wait in join_next: the set keeps one waker, and a
// second waiter that replaced the first would leave it waiting for good
// (and its cancellation would later take the other's waker: a use after
// free).
TEST_P(JoinSetBothFlavors, TwoTasksInJoinNextAtOnceIsAClearError) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    join_set<int> set;
    set.spawn(after(20ms, 1));
    set.spawn(after(20ms, 2));
    auto next = [](join_set<int>& s) -> task<int> { co_return (co_await s.join_next()).value_or(-1); };
    auto first = spawn(next(set));
    co_await sleep(5ms);  // the first waits in join_next now
    auto second = spawn(next(set));
    EXPECT_THROW(co_await second, runtime_misuse);
    const int got = co_await first;
    EXPECT_TRUE(got == 1 || got == 2) << got;
    EXPECT_EQ(set.size(), 1U);
    EXPECT_TRUE(co_await set.join_next());
  }());
}

// A moved-from set is an empty set that can be used again.
TEST_P(JoinSetBothFlavors, AMovedFromSetIsEmptyAndUsable) {
  auto rt = make();
  rt.block_on([]() -> task<void> {
    join_set<int> set;
    set.spawn(after(1ms, 1));
    join_set<int> taker(std::move(set));
    EXPECT_EQ(set.size(), 0U);  // NOLINT(bugprone-use-after-move): what a moved-from set does is the test
    EXPECT_TRUE(set.empty());
    EXPECT_FALSE(co_await set.join_next());
    set.spawn(after(1ms, 2));
    EXPECT_EQ(co_await set.join_next(), std::optional<int>(2));
    EXPECT_EQ(co_await taker.join_next(), std::optional<int>(1));
  }());
}

TEST_P(JoinSetBothFlavors, JoinNextIsCancellationSafe) {
  // Time out a task waiting in join_next over and over (each time-out
  // aborts that task) while members finish: every result still comes out
  // exactly once.
  auto rt = make();
  const int sum = rt.block_on([]() -> task<int> {
    join_set<int> set;
    for (int i = 1; i <= 40; ++i) set.spawn(after(std::chrono::milliseconds(i % 7), i));
    int total = 0;
    int seen = 0;
    while (seen < 40) {
      auto r = co_await timeout(
          200us, [](join_set<int>& s) -> task<std::optional<int>> { co_return co_await s.join_next(); }(set));
      if (r.has_value() && r.value().has_value()) {
        total += *r.value();
        ++seen;
      }
    }
    co_return total;
  }());
  EXPECT_EQ(sum, 40 * 41 / 2);
}

// join_next() itself races in a select or a timeout, in place (it could
// not: its awaiter did not move, so neither compiled). A join_next that
// loses, also after a member finished, takes nothing: every result comes
// out exactly once.
TEST_P(JoinSetBothFlavors, JoinNextInASelectOrATimeoutLosesNoResult) {
  auto rt = make();
  const int sum = rt.block_on([]() -> task<int> {
    join_set<int> set;
    for (int i = 1; i <= 60; ++i) set.spawn(after(std::chrono::milliseconds(i % 5), i));
    int total = 0;
    for (int round = 0;; ++round) {
      std::optional<int> got;
      if (round % 2 == 0) {
        auto r = co_await select(set.join_next(), sleep(100us + (round % 7) * 50us));
        if (r.index() == 1) continue;
        got = std::get<0>(std::move(r));
      } else {
        auto r = co_await timeout(round % 3 * 100us, set.join_next());
        if (!r.has_value()) continue;
        got = r.value();
      }
      if (!got.has_value()) break;  // the set is empty
      total += *got;
    }
    co_return total;
  }());
  EXPECT_EQ(sum, 60 * 61 / 2);
}

// A member aborted before it first ran still reports (cancelled): a
// join_next loop after abort_all() must end, not wait forever.
TEST_P(JoinSetBothFlavors, MembersAbortedBeforeTheyRanAreReported) {
  auto rt = make();
  const int cancelled = rt.block_on([]() -> task<int> {
    join_set<int> set;
    for (int i = 0; i < 10; ++i) set.spawn([](int i) -> task<int> { co_return i; }(i));
    set.abort_all();  // on one thread none has run yet; on two, some may have
    int n = 0;
    while (!set.empty()) {
      try {
        (void)co_await set.join_next();
      } catch (const task_cancelled&) {
        ++n;
      }
    }
    co_return n;
  }());
  if (!GetParam()) {
    EXPECT_EQ(cancelled, 10);
  }
  EXPECT_LE(cancelled, 10);
}

INSTANTIATE_TEST_SUITE_P(Io, JoinSetBothFlavors, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "MultiThread" : "CurrentThread"; });

}  // namespace
}  // namespace lanes
