// The work-stealing run queue: owner push/pop, overflow to the global
// queue, and a randomized stress in which thieves steal while the owner
// pushes and pops; every task must come out exactly once.
#include "io/local_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
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
  EXPECT_EQ(id_of(got), 3);       // the last of the 4 stolen is returned to run
  EXPECT_EQ(thief.size(), 3U);    // the other 3 land in the thief's queue
  EXPECT_EQ(victim.size(), 4U);
  EXPECT_EQ(id_of(victim.pop()), 4);
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
