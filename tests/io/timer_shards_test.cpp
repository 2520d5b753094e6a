// The per-worker timer wheels: inserts land in the caller's shard and are
// cancelled from any thread; advance() hands back what is due in every
// shard in deadline order; a busy worker's maintenance (all = false) skips
// shards with nothing due and never waits for another worker's lock.
#include "io/timer_shards.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace lanes::detail {
namespace {

std::unique_ptr<timer_entry> entry_at(std::uint64_t tick) {
  auto e = std::make_unique<timer_entry>();
  e->deadline_tick = tick;
  return e;
}

TEST(TimerShards, DueTimersOfAllShardsComeOutInDeadlineOrder) {
  timer_shards shards(3);
  std::vector<std::unique_ptr<timer_entry>> entries;
  const std::uint64_t ticks[] = {50, 10, 40, 20, 30, 60};
  for (std::size_t i = 0; i < std::size(ticks); ++i) {
    entries.push_back(entry_at(ticks[i]));
    ASSERT_TRUE(shards.insert(static_cast<unsigned>(i % 3), *entries.back()));
    EXPECT_EQ(entries.back()->shard, i % 3);
  }
  EXPECT_EQ(shards.pending(), 6U);
  ASSERT_TRUE(shards.next_deadline().has_value());
  EXPECT_LE(*shards.next_deadline(), 10U);
  std::vector<timer_wheel::due_timer> due;
  shards.advance(45, 1, true, due);
  ASSERT_EQ(due.size(), 4U);
  for (std::size_t i = 0; i < due.size(); ++i) EXPECT_EQ(due[i].deadline_tick, 10U * (i + 1));
  EXPECT_EQ(shards.pending(), 2U);
  for (auto& e : entries) EXPECT_EQ(e->linked.load(), e->deadline_tick > 45);
}

// A limit spreads the firing over several calls: each takes at most that
// many (these deadlines are all distinct ticks), the shards not reached
// keep their due timers and their hints, and every timer fires once.
TEST(TimerShards, ALimitSpreadsTheFiringOverCalls) {
  timer_shards shards(3);
  std::vector<std::unique_ptr<timer_entry>> entries;
  for (std::uint64_t i = 0; i < 12; ++i) {
    entries.push_back(entry_at(10 + i));
    ASSERT_TRUE(shards.insert(static_cast<unsigned>(i % 3), *entries.back()));
  }
  std::vector<timer_wheel::due_timer> due;
  int calls = 0;
  while (shards.pending() > 0) {
    const std::size_t before = due.size();
    shards.advance(100, 0, calls % 2 == 0, due, 5);  // the driver's way and maintenance's
    ASSERT_GT(due.size(), before) << "every call makes progress";
    EXPECT_LE(due.size() - before, 5U);
    ASSERT_LT(++calls, 10);
  }
  EXPECT_EQ(due.size(), 12U);
  for (auto& e : entries) EXPECT_FALSE(e->linked.load());
}

TEST(TimerShards, MaintenanceFiresOnlyWhatIsDueWhileAnotherThreadChurnsAShard) {
  timer_shards shards(2);
  auto mine = entry_at(100);
  auto theirs = entry_at(100);
  ASSERT_TRUE(shards.insert(0, *mine));
  ASSERT_TRUE(shards.insert(1, *theirs));
  std::vector<timer_wheel::due_timer> due;
  shards.advance(99, 0, false, due);  // nothing due anywhere
  EXPECT_TRUE(due.empty());
  EXPECT_EQ(shards.pending(), 2U);

  // Another thread keeps shard 1's lock busy while worker 0's maintenance
  // runs: worker 0 fires its own due timer either way.
  std::atomic<bool> hold{true};
  std::atomic<bool> held{false};
  std::thread other([&] {
    auto churn = entry_at(1'000'000);
    held.store(true);
    while (hold.load()) {
      if (shards.insert(1, *churn)) shards.cancel(*churn);
    }
  });
  while (!held.load()) std::this_thread::yield();
  shards.advance(100, 0, false, due);
  hold.store(false);
  other.join();
  ASSERT_GE(due.size(), 1U);
  EXPECT_FALSE(mine->linked.load());
  // Whether shard 1 was free at that moment is up to the scheduler of the
  // test machine; the driver's advance (all = true) fires it in any case.
  shards.advance(100, 0, true, due);
  EXPECT_FALSE(theirs->linked.load());
  EXPECT_EQ(due.size(), 2U);
  EXPECT_EQ(shards.pending(), 0U);
}

TEST(TimerShards, CancelFindsTheShardThatHoldsTheEntry) {
  timer_shards shards(4);
  auto e = entry_at(500);
  ASSERT_TRUE(shards.insert(3, *e));
  std::thread([&] { EXPECT_TRUE(shards.cancel(*e)); }).join();
  EXPECT_EQ(shards.pending(), 0U);
  EXPECT_FALSE(shards.cancel(*e));  // already gone
  std::vector<timer_wheel::due_timer> due;
  shards.advance(1000, 0, true, due);
  EXPECT_TRUE(due.empty());
}

// Four threads, each its own shard, insert timers and hand them on (as a
// task migrating to another worker hands its timer on), and cancel one in
// three of the timers handed on by any thread; three fire in maintenance
// mode and one as the driver. Every timer ends fired or cancelled, once.
TEST(TimerShardsStress, InsertsCancelsAndFiringsFromManyThreadsAccountForEveryTimer) {
  constexpr unsigned threads = 4;
  constexpr int per_thread = 20'000;
  timer_shards shards(threads);
  std::vector<std::unique_ptr<timer_entry>> entries(threads * per_thread);
  for (auto& e : entries) e = std::make_unique<timer_entry>();
  std::atomic<int> fired{0};
  std::atomic<int> cancelled{0};
  std::atomic<std::uint64_t> clock{1};
  std::mutex handed_on_mutex;  // orders an insert before another thread's cancel
  std::vector<timer_entry*> handed_on;
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::minstd_rand rng(t + 3);
      std::vector<timer_wheel::due_timer> due;
      for (int i = 0; i < per_thread; ++i) {
        auto& e = *entries[t * per_thread + static_cast<std::size_t>(i)];
        const std::uint64_t now = clock.fetch_add(1);
        e.deadline_tick = now + 1 + rng() % 5000;
        if (!shards.insert(t, e)) {
          fired.fetch_add(1);  // due already: the caller fires it itself
        } else {
          timer_entry* victim = nullptr;
          {
            std::lock_guard lock(handed_on_mutex);
            handed_on.push_back(&e);
            if (rng() % 3 == 0) {
              const std::size_t k = rng() % handed_on.size();
              victim = handed_on[k];
              handed_on[k] = handed_on.back();
              handed_on.pop_back();
            }
          }
          if (victim != nullptr && shards.cancel(*victim)) cancelled.fetch_add(1);
        }
        if (i % 64 == 0) {
          shards.advance(clock.load(), t, t == 0, due);
          fired.fetch_add(static_cast<int>(due.size()));
          due.clear();
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  std::vector<timer_wheel::due_timer> due;
  shards.advance(UINT64_MAX >> 8, 0, true, due);
  fired.fetch_add(static_cast<int>(due.size()));
  EXPECT_EQ(shards.pending(), 0U);
  EXPECT_EQ(fired.load() + cancelled.load(), static_cast<int>(entries.size()));
  for (auto& e : entries) EXPECT_FALSE(e->linked.load());
}

}  // namespace
}  // namespace lanes::detail
