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
// With `duration` set, most rounds instead insert timers of that one
// duration (plus 0..4 ticks, in order), as a server's sleeps and timeouts
// are: coarse slots in deadline order, which go onto the run.
void check_random_schedule_against_model(std::uint64_t seed, int max_magnitude, std::uint64_t max_jump,
                                         std::size_t limit = SIZE_MAX, std::uint64_t duration = 0) {
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
      it->entry.deadline_tick = duration != 0 && round % 8 != 0 ? now + duration + static_cast<std::uint64_t>(i)
                                                                : now + 1 + (rng() % (std::uint64_t{1} << magnitude));
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
TEST(TimerWheel, ShortTimersAcrossLevelZeroWindowsMatchModel) { check_random_schedule_against_model(777, 14, 3000); }

// Small batches (the scheduler fires what its run queue can hold): the
// timers a limit leaves in a coarse slot go down a level and fire later.
TEST(TimerWheel, LimitedAdvancesMatchModel) {
  check_random_schedule_against_model(4242, 30, 100000, 3);
  check_random_schedule_against_model(99, 14, 3000, 1);
}

// Timers of one duration (100 ms, and 300 ms: levels 1 and 2), with and
// without a limit: the run, merged with the slots.
TEST(TimerWheel, TimersOfOneDurationMatchModel) {
  check_random_schedule_against_model(31, 20, 3000, SIZE_MAX, 100'000);
  check_random_schedule_against_model(32, 20, 3000, 4, 100'000);
  check_random_schedule_against_model(33, 24, 20000, 2, 300'000);
}

// A slot keeps its entries in insertion order, so entries with one
// deadline fire first in, first out: the coarse slot (in deadline order)
// moves whole onto the run, and each advance with a limit of 2 takes the
// next two from the run's head, the rest still pending.
TEST(TimerWheel, EqualDeadlinesFireInInsertionOrderAcrossALimit) {
  timer_wheel wheel;
  std::vector<timer_entry> entries(5);
  for (auto& e : entries) {
    e.deadline_tick = 10'000;  // beyond level 0's first window: a level-1 slot starting at 8192
    ASSERT_TRUE(wheel.insert(e));
  }
  std::vector<timer_wheel::due_timer> due;
  for (std::size_t fired : {2U, 4U}) {
    wheel.advance(20'000, due, 2);
    EXPECT_EQ(due.size(), fired);
    for (std::size_t i = 0; i < entries.size(); ++i) EXPECT_EQ(entries[i].linked, i >= fired) << i;
    EXPECT_EQ(wheel.size(), entries.size() - fired);
    ASSERT_TRUE(wheel.next_deadline().has_value());
    EXPECT_LE(*wheel.next_deadline(), 20'000U);  // still due: the wheel's time stopped short
  }
  wheel.advance(20'000, due, 2);
  EXPECT_EQ(due.size(), 5U);
  for (auto& e : entries) EXPECT_FALSE(e.linked);
  EXPECT_EQ(wheel.size(), 0U);
  EXPECT_EQ(wheel.now(), 20'000U);
}

// A coarse slot in deadline order goes onto the run when its time comes,
// without firing what is not due; an entry on the run can be removed;
// one set afterwards with the same deadline (in a level-0 slot) fires
// after those on the run, which were set first.
TEST(TimerWheel, TheRunKeepsItsOrderAndAllowsRemoval) {
  timer_wheel wheel;
  std::vector<timer_entry> entries(5);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    entries[i].deadline_tick = 10'000 + i;
    ASSERT_TRUE(wheel.insert(entries[i]));
  }
  std::vector<timer_wheel::due_timer> due;
  wheel.advance(8'192, due);  // the level-1 slot's start: nothing due yet
  EXPECT_TRUE(due.empty());
  EXPECT_EQ(wheel.size(), 5U);
  ASSERT_TRUE(wheel.next_deadline().has_value());
  EXPECT_EQ(*wheel.next_deadline(), 10'000U);  // the run's head, exactly
  wheel.remove(entries[2]);                    // from the middle of the run
  wheel.remove(entries[4]);                    // its tail
  EXPECT_FALSE(entries[2].linked);
  EXPECT_EQ(wheel.size(), 3U);
  timer_entry later;  // same deadline as the run's head, set after it
  later.deadline_tick = 10'000;
  ASSERT_TRUE(wheel.insert(later));
  wheel.advance(10'000, due, 1);
  ASSERT_EQ(due.size(), 1U);
  EXPECT_FALSE(entries[0].linked);
  EXPECT_TRUE(later.linked) << "set later with an equal deadline: fires after the run's entry";
  wheel.advance(10'003, due);
  ASSERT_EQ(due.size(), 4U);
  EXPECT_EQ(due[1].deadline_tick, 10'000U);  // `later`
  EXPECT_EQ(due[2].deadline_tick, 10'001U);
  EXPECT_EQ(due[3].deadline_tick, 10'003U);
  EXPECT_FALSE(later.linked);
  EXPECT_EQ(wheel.size(), 0U);
  EXPECT_FALSE(wheel.next_deadline().has_value());
}

// At a runtime's shutdown the wheel lets go of what is left, wherever it
// sits (level 0, a coarse level, the run): every entry unlinked, the wheel
// empty and usable again.
TEST(TimerWheel, ReleaseAllUnlinksEveryEntry) {
  timer_wheel wheel;
  std::vector<timer_entry> entries(6);
  const std::uint64_t deadlines[] = {10'000, 10'001, 100, 300'000, 1ULL << 40, 9'000};
  for (std::size_t i = 0; i < 3; ++i) {  // two into one level-1 slot, the 100 into level 0
    entries[i].deadline_tick = deadlines[i];
    ASSERT_TRUE(wheel.insert(entries[i]));
  }
  std::vector<timer_wheel::due_timer> due;
  wheel.advance(8'192, due);  // fires the 100; the level-1 slot of 10,000 goes onto the run
  ASSERT_EQ(due.size(), 1U);
  for (std::size_t i = 3; i < entries.size(); ++i) {
    entries[i].deadline_tick = deadlines[i];
    ASSERT_TRUE(wheel.insert(entries[i]));
  }
  EXPECT_EQ(wheel.size(), 5U);
  wheel.release_all();
  for (std::size_t i = 0; i < entries.size(); ++i) EXPECT_FALSE(entries[i].linked) << i;
  EXPECT_EQ(wheel.size(), 0U);
  EXPECT_FALSE(wheel.next_deadline().has_value());
  wheel.remove(entries[0]);  // a released entry is not linked: removing it is harmless
  timer_entry again;
  again.deadline_tick = 20'000;
  ASSERT_TRUE(wheel.insert(again));
  wheel.advance(20'000, due);
  EXPECT_EQ(due.size(), 2U);
  EXPECT_FALSE(again.linked);
}

// A coarse slot appended out of deadline order is cascaded as before, and
// its timers still come out in deadline order.
TEST(TimerWheel, ASlotOutOfOrderIsCascaded) {
  timer_wheel wheel;
  std::vector<timer_entry> entries(3);
  const std::uint64_t deadlines[] = {10'002, 10'000, 10'001};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    entries[i].deadline_tick = deadlines[i];
    ASSERT_TRUE(wheel.insert(entries[i]));
  }
  std::vector<timer_wheel::due_timer> due;
  wheel.advance(8'192, due);
  EXPECT_TRUE(due.empty());
  ASSERT_TRUE(wheel.next_deadline().has_value());
  EXPECT_EQ(*wheel.next_deadline(), 10'000U);  // the earliest, not the slot's first: it went down to level 0
  wheel.remove(entries[2]);                    // now in level 0's slot 10,001
  wheel.advance(10'002, due);
  ASSERT_EQ(due.size(), 2U);
  EXPECT_EQ(due[0].deadline_tick, 10'000U);
  EXPECT_EQ(due[1].deadline_tick, 10'002U);
  EXPECT_EQ(wheel.size(), 0U);
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
