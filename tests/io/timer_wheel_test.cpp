// The hierarchical timer wheel against a simple model: every entry fires
// exactly once, at the first advance() whose time reaches its deadline.
#include "io/timer_wheel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>

namespace lanes::detail {
namespace {

TEST(TimerWheel, InsertAndNextDeadline) {
  timer_wheel wheel;
  timer_entry a;
  a.deadline_tick = 100;
  EXPECT_TRUE(wheel.insert(a));
  EXPECT_EQ(wheel.size(), 1U);
  const auto next = wheel.next_deadline();
  ASSERT_TRUE(next.has_value());
  EXPECT_LE(*next, 100U);  // a slot boundary at or before the deadline
  timer_entry past;
  past.deadline_tick = 0;
  EXPECT_FALSE(wheel.insert(past));  // not after now: the caller fires it
}

TEST(TimerWheel, RemoveIsImmediate) {
  timer_wheel wheel;
  timer_entry a;
  a.deadline_tick = 5000;
  ASSERT_TRUE(wheel.insert(a));
  wheel.remove(a);
  EXPECT_EQ(wheel.size(), 0U);
  EXPECT_FALSE(wheel.next_deadline().has_value());
  wheel.remove(a);  // twice is harmless
}

// Deadlines from 1 tick to 2^max_magnitude ticks ahead, a random one
// cancelled per round, time advanced to the next deadline or jumped ahead
// by up to `max_jump` ticks. With a `limit`, advance() is called with it
// until nothing is due at `now`, each call making progress.
void check_random_schedule_against_model(std::uint64_t seed, int max_magnitude, std::uint64_t max_jump,
                                         std::size_t limit = SIZE_MAX) {
  std::mt19937_64 rng(seed);
  timer_wheel wheel;
  struct item {
    timer_entry entry;
    bool fired = false;
    bool cancelled = false;
  };
  std::vector<std::unique_ptr<item>> items;
  std::uint64_t now = 0;
  for (int round = 0; round < 2000; ++round) {
    // Insert a few with deadlines from 1 tick to ~2^30 ticks ahead.
    for (int i = 0; i < 5; ++i) {
      auto it = std::make_unique<item>();
      const int magnitude = static_cast<int>(rng() % static_cast<std::uint64_t>(max_magnitude));
      it->entry.deadline_tick = now + 1 + (rng() % (std::uint64_t{1} << magnitude));
      ASSERT_TRUE(wheel.insert(it->entry));
      items.push_back(std::move(it));
    }
    // Cancel one at random.
    auto& victim = items[rng() % items.size()];
    if (!victim->fired && !victim->cancelled) {
      wheel.remove(victim->entry);
      victim->cancelled = true;
    }
    // Advance to the next deadline, or jump ahead.
    const auto next = wheel.next_deadline();
    now = (rng() % 3 == 0 || !next) ? now + (rng() % max_jump) : std::max(now, *next);
    std::vector<timer_wheel::due_timer> due;
    for (;;) {
      const std::size_t before = due.size();
      wheel.advance(now, due, limit);
      EXPECT_TRUE(std::is_sorted(due.begin() + static_cast<std::ptrdiff_t>(before), due.end(),
                                 [](const auto& a, const auto& b) { return a.deadline_tick < b.deadline_tick; }))
          << "timers due together must come out in deadline order";
      const auto left = wheel.next_deadline();
      if (!left || *left > now) break;
      ASSERT_GT(due.size(), before) << "a limited advance must make progress";
    }
    // The wakers are empty here: a fired entry shows as unlinked.
    std::size_t fired_now = 0;
    for (auto& it : items) {
      if (!it->fired && !it->cancelled && !it->entry.linked) {
        EXPECT_LE(it->entry.deadline_tick, now) << "fired early";
        it->fired = true;
        ++fired_now;
      }
      if (!it->fired && !it->cancelled) {
        EXPECT_GT(it->entry.deadline_tick, now) << "missed a due timer";
      }
    }
    EXPECT_EQ(due.size(), fired_now);
  }
  std::size_t pending = 0;
  for (auto& it : items) pending += (!it->fired && !it->cancelled) ? 1 : 0;
  EXPECT_EQ(wheel.size(), pending);
}

TEST(TimerWheel, RandomScheduleMatchesModel) { check_random_schedule_against_model(12345, 30, 100000); }

// Short timers and small steps: level 0's 4096 one-tick slots, its wrap
// from one 4096-tick window to the next, and the first cascades.
TEST(TimerWheel, ShortTimersAcrossLevelZeroWindowsMatchModel) {
  check_random_schedule_against_model(777, 14, 3000);
}

// Small batches (the scheduler fires what its run queue can hold): the
// timers a limit leaves in a coarse slot go down a level and fire later.
TEST(TimerWheel, LimitedAdvancesMatchModel) {
  check_random_schedule_against_model(4242, 30, 100000, 3);
  check_random_schedule_against_model(99, 14, 3000, 1);
}

// A slot keeps its entries in insertion order, so entries with one
// deadline fire first in, first out: a limit of 2 takes the first two of a
// coarse slot and sends the others down to level 0, still pending, where
// the next advance finds them.
TEST(TimerWheel, EqualDeadlinesFireInInsertionOrderAcrossALimit) {
  timer_wheel wheel;
  std::vector<timer_entry> entries(5);
  for (auto& e : entries) {
    e.deadline_tick = 10'000;  // beyond level 0's first window: a level-1 slot starting at 8192
    ASSERT_TRUE(wheel.insert(e));
  }
  std::vector<timer_wheel::due_timer> due;
  wheel.advance(20'000, due, 2);
  EXPECT_EQ(due.size(), 2U);
  EXPECT_FALSE(entries[0].linked);
  EXPECT_FALSE(entries[1].linked);
  for (std::size_t i = 2; i < entries.size(); ++i) EXPECT_TRUE(entries[i].linked) << i;
  EXPECT_EQ(wheel.size(), 3U);
  ASSERT_TRUE(wheel.next_deadline().has_value());
  EXPECT_LE(*wheel.next_deadline(), 20'000U);  // still due: the wheel's time stopped short
  // The other three now share level 0's one-tick slot 10,000, which is
  // taken whole (the limit's overshoot): all of them, and the wheel's time
  // catches up.
  wheel.advance(20'000, due, 2);
  EXPECT_EQ(due.size(), 5U);
  for (auto& e : entries) EXPECT_FALSE(e.linked);
  EXPECT_EQ(wheel.size(), 0U);
  EXPECT_EQ(wheel.now(), 20'000U);
}

// Removing the head, a middle entry and the tail of one slot's list keeps
// the rest linked, in order.
TEST(TimerWheel, RemovingFromEitherEndOfASlotKeepsTheRest) {
  timer_wheel wheel;
  std::vector<timer_entry> entries(6);
  for (auto& e : entries) {
    e.deadline_tick = 500;
    ASSERT_TRUE(wheel.insert(e));
  }
  wheel.remove(entries[0]);
  wheel.remove(entries[5]);
  wheel.remove(entries[3]);
  EXPECT_EQ(wheel.size(), 3U);
  ASSERT_TRUE(wheel.insert(entries[5]));  // appended after the new tail
  std::vector<timer_wheel::due_timer> due;
  wheel.advance(500, due, 1);  // one slot of one tick: taken whole
  EXPECT_EQ(due.size(), 4U);
  for (int i : {1, 2, 4, 5}) EXPECT_FALSE(entries[static_cast<std::size_t>(i)].linked) << i;
  EXPECT_EQ(wheel.size(), 0U);
}

}  // namespace
}  // namespace lanes::detail
