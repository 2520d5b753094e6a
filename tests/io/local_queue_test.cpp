// The work-stealing run queue: owner push/pop, overflow to the global
// queue, and a randomized stress in which thieves steal while the owner
// pushes and pops; every task must come out exactly once.
#include "io/local_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "io/inject_queue.hpp"

namespace lanes::detail {
namespace {

// A stand-in task: only its address matters to the queue.
struct fake_task final : task_header {
  explicit fake_task(int id) : task_header(nullptr, {}, nullptr, {}), id(id) {}
  void take_result() noexcept override {}
  int id;
  static void destroy(task_header* t) { delete static_cast<fake_task*>(t); }
};

int id_of(task_header* t) { return static_cast<fake_task*>(t)->id; }

std::vector<std::unique_ptr<fake_task, void (*)(task_header*)>> make_tasks(int n) {
  std::vector<std::unique_ptr<fake_task, void (*)(task_header*)>> tasks;
  for (int i = 0; i < n; ++i) tasks.emplace_back(new fake_task(i), &fake_task::destroy);
  return tasks;
}

TEST(LocalQueue, PushPopFifo) {
  auto tasks = make_tasks(10);
  local_queue q;
  inject_queue overflow;
  for (auto& t : tasks) q.push_back(t.get(), overflow);
  EXPECT_EQ(q.size(), 10U);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(id_of(q.pop()), i);
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_TRUE(overflow.empty());
}

TEST(LocalQueue, OverflowMovesHalfToTheGlobalQueue) {
  auto tasks = make_tasks(local_queue::capacity + 1);
  local_queue q;
  inject_queue overflow;
  for (auto& t : tasks) q.push_back(t.get(), overflow);
  EXPECT_EQ(overflow.size(), local_queue::capacity / 2 + 1);
  EXPECT_EQ(q.size(), local_queue::capacity / 2);
  std::vector<int> seen;
  while (task_header* t = overflow.pop()) seen.push_back(id_of(t));
  while (task_header* t = q.pop()) seen.push_back(id_of(t));
  ASSERT_EQ(seen.size(), tasks.size());
  std::sort(seen.begin(), seen.end());
  for (int i = 0; i < static_cast<int>(seen.size()); ++i) EXPECT_EQ(seen[i], i);
}

TEST(LocalQueue, StealTakesHalf) {
  auto tasks = make_tasks(8);
  local_queue victim;
  local_queue thief;
  inject_queue overflow;
  for (auto& t : tasks) victim.push_back(t.get(), overflow);
  EXPECT_EQ(thief.steal_into(victim), nullptr);  // nothing to steal from an empty queue
  task_header* got = victim.steal_into(thief);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(id_of(got), 3);     // the last of the 4 stolen is returned to run
  EXPECT_EQ(thief.size(), 3U);  // the other 3 land in the thief's queue
  EXPECT_EQ(victim.size(), 4U);
  EXPECT_EQ(id_of(victim.pop()), 4);
}

TEST(GlobalQueue, PopChainTakesTheFrontInOrder) {
  auto tasks = make_tasks(10);
  inject_queue global;
  for (auto& t : tasks) global.push(t.get());
  std::size_t count = 0;
  task_header* first = global.pop_chain(4, count);
  ASSERT_EQ(count, 4U);
  int expected = 0;
  for (task_header* t = first; t != nullptr; t = t->queued_next()) EXPECT_EQ(id_of(t), expected++);
  EXPECT_EQ(expected, 4);  // the chain ends after the 4th
  EXPECT_EQ(global.size(), 6U);
  first = global.pop_chain(100, count);  // fewer left than asked for
  EXPECT_EQ(count, 6U);
  EXPECT_EQ(id_of(first), 4);
  EXPECT_TRUE(global.empty());
  EXPECT_EQ(global.pop_chain(8, count), nullptr);
  EXPECT_EQ(count, 0U);
}

TEST(LocalQueue, PushChainAppendsInOrder) {
  auto tasks = make_tasks(8);
  local_queue q;
  inject_queue global;
  for (int i = 0; i < 3; ++i) q.push_back(tasks[static_cast<std::size_t>(i)].get(), global);
  EXPECT_EQ(q.room(), local_queue::capacity - 3);
  for (int i = 3; i < 8; ++i) global.push(tasks[static_cast<std::size_t>(i)].get());
  std::size_t count = 0;
  task_header* chain = global.pop_chain(5, count);
  q.push_chain(chain, static_cast<std::uint32_t>(count));
  EXPECT_EQ(q.size(), 8U);
  EXPECT_EQ(q.room(), local_queue::capacity - 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(id_of(q.pop()), i);
  EXPECT_EQ(q.room(), local_queue::capacity);
}

// The owner refills its queue from the global one in chains while thieves
// steal from it, and both sides put some of what they took back on the
// global queue (which rewrites queue_next_ while the owner may be linking a
// chain): every task is finally run exactly once.
TEST(LocalQueueStress, ChainsFromTheGlobalQueueMeetThievesAndReinjection) {
  constexpr int total = 100'000;
  auto tasks = make_tasks(total);
  std::vector<std::atomic<int>> runs(total);
  std::atomic<int> ran{0};
  local_queue owner_queue;
  inject_queue global;
  for (auto& t : tasks) global.push(t.get());
  // Runs a task, or (one time in four) puts it back on the global queue.
  const auto run_or_reinject = [&](task_header* t, std::minstd_rand& rng) {
    if (rng() % 4 == 0) {
      global.push(t);
      return;
    }
    runs[static_cast<std::size_t>(id_of(t))].fetch_add(1);
    ran.fetch_add(1, std::memory_order_release);
  };
  // A lost task would leave the loops waiting forever: they give up at a
  // deadline instead, and the counts below say what went missing.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  const auto going = [&] {
    return ran.load(std::memory_order_acquire) < total && std::chrono::steady_clock::now() < give_up;
  };
  std::vector<std::thread> thieves;
  for (int t = 0; t < 3; ++t) {
    thieves.emplace_back([&, t] {
      local_queue mine;
      std::minstd_rand rng(static_cast<unsigned>(t + 11));
      while (going()) {
        if (task_header* got = owner_queue.steal_into(mine)) {
          run_or_reinject(got, rng);
          while (task_header* more = mine.pop()) run_or_reinject(more, rng);
        } else if (rng() % 2 == 0) {
          std::this_thread::yield();
        }
      }
    });
  }
  std::minstd_rand rng(5);
  while (going()) {
    std::size_t count = 0;
    const std::size_t max = 1 + rng() % (std::min<std::size_t>(owner_queue.room(), 128) + 1);
    if (task_header* first = global.pop_chain(max, count)) {
      task_header* rest = first->queued_next();  // read before the chain is published
      if (count > 1) owner_queue.push_chain(rest, static_cast<std::uint32_t>(count - 1));
      run_or_reinject(first, rng);
    }
    for (int k = static_cast<int>(rng() % 8); k > 0; --k) {
      if (task_header* t = owner_queue.pop()) run_or_reinject(t, rng);
    }
  }
  for (auto& th : thieves) th.join();
  ASSERT_EQ(ran.load(), total);
  EXPECT_TRUE(global.empty());
  EXPECT_TRUE(owner_queue.empty());
  for (int i = 0; i < total; ++i) ASSERT_EQ(runs[static_cast<std::size_t>(i)].load(), 1) << "task " << i;
}

TEST(LocalQueueStress, ConcurrentStealsLoseAndDuplicateNothing) {
  constexpr int total = 200'000;
  auto tasks = make_tasks(total);
  std::vector<std::atomic<int>> seen(total);
  local_queue owner_queue;
  inject_queue overflow;
  std::atomic<bool> done{false};
  constexpr int thieves = 3;
  std::vector<std::thread> threads;
  for (int t = 0; t < thieves; ++t) {
    threads.emplace_back([&, t] {
      local_queue mine;
      std::minstd_rand rng(static_cast<unsigned>(t + 7));
      while (!done.load(std::memory_order_acquire) || !owner_queue.empty()) {
        if (task_header* got = owner_queue.steal_into(mine)) {
          seen[static_cast<std::size_t>(id_of(got))].fetch_add(1);
          while (task_header* more = mine.pop()) seen[static_cast<std::size_t>(id_of(more))].fetch_add(1);
        }
        if (rng() % 4 == 0) std::this_thread::yield();
      }
    });
  }
  std::minstd_rand rng(99);
  for (int i = 0; i < total; ++i) {
    owner_queue.push_back(tasks[static_cast<std::size_t>(i)].get(), overflow);
    if (rng() % 3 == 0) {
      if (task_header* got = owner_queue.pop()) seen[static_cast<std::size_t>(id_of(got))].fetch_add(1);
    }
  }
  while (task_header* got = owner_queue.pop()) seen[static_cast<std::size_t>(id_of(got))].fetch_add(1);
  done.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  while (task_header* got = overflow.pop()) seen[static_cast<std::size_t>(id_of(got))].fetch_add(1);
  for (int i = 0; i < total; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)].load(), 1) << "task " << i;
}

}  // namespace
}  // namespace lanes::detail
