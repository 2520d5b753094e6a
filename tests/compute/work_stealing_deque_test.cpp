// The Chase-Lev deque alone: LIFO for the owner, FIFO for thieves, growth,
// tag filtering, and (in stress_test.cpp) exactly-once under contention.
#include <lanes/compute/detail/work_stealing_deque.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace lanes::compute::detail {
namespace {

TEST(WorkStealingDeque, OwnerPopsNewestThiefStealsOldest) {
  work_stealing_deque<int*> d(4);
  std::vector<int> items{0, 1, 2, 3};
  for (auto& i : items) d.push(&i);
  EXPECT_EQ(d.size(), 4);
  EXPECT_EQ(d.steal(), &items[0]);
  EXPECT_EQ(d.pop(), &items[3]);
  EXPECT_EQ(d.steal(), &items[1]);
  EXPECT_EQ(d.pop(), &items[2]);
  EXPECT_EQ(d.pop(), nullptr);
  EXPECT_EQ(d.steal(), nullptr);
  EXPECT_TRUE(d.empty());
}

// The pool-of-one pop: LIFO, empty when empty, after growth and after
// steals moved the top (a pool of one never steals, but the deque must not
// depend on it).
TEST(WorkStealingDeque, UnsharedPopIsLifoAcrossGrowthAndAMovedTop) {
  work_stealing_deque<int*> d(2);
  std::vector<int> items(100);
  EXPECT_EQ(d.pop_unshared(), nullptr);
  for (auto& i : items) d.push(&i);
  EXPECT_EQ(d.steal(), &items[0]);
  EXPECT_EQ(d.steal(), &items[1]);
  for (std::size_t k = items.size(); k-- > 50;) EXPECT_EQ(d.pop_unshared(), &items[k]);
  d.push(&items[99]);
  EXPECT_EQ(d.pop_unshared(), &items[99]);
  for (std::size_t k = 50; k-- > 2;) EXPECT_EQ(d.pop_unshared(), &items[k]);
  EXPECT_EQ(d.pop_unshared(), nullptr);
  EXPECT_EQ(d.pop_unshared(), nullptr);
  EXPECT_TRUE(d.empty());
  d.push(&items[7]);
  EXPECT_EQ(d.size(), 1);
  EXPECT_EQ(d.pop_unshared(), &items[7]);
}

TEST(WorkStealingDeque, GrowsPastItsCapacityKeepingOrder) {
  work_stealing_deque<int*> d(2);
  std::vector<int> items(1000);
  for (auto& i : items) d.push(&i);
  EXPECT_EQ(d.size(), 1000);
  for (int k = 0; k < 10; ++k) EXPECT_EQ(d.steal(), &items[static_cast<std::size_t>(k)]);
  for (std::size_t k = items.size(); k-- > 10;) EXPECT_EQ(d.pop(), &items[k]);
  EXPECT_EQ(d.pop(), nullptr);
}

TEST(WorkStealingDeque, AThiefDeclinesAJobOfAnotherTag) {
  work_stealing_deque<int*> d;
  int a = 0;
  int b = 0;
  d.push(&a, 7);
  d.push(&b, 9);
  EXPECT_EQ(d.steal(9), nullptr);  // the oldest is tagged 7
  EXPECT_EQ(d.size(), 2);
  EXPECT_EQ(d.steal(7), &a);
  EXPECT_EQ(d.steal(9), &b);
}

TEST(WorkStealingDeque, PopAndStealAlternateOnOneItem) {
  work_stealing_deque<int*> d;
  int x = 0;
  for (int i = 0; i < 100; ++i) {
    d.push(&x);
    EXPECT_EQ(i % 2 == 0 ? d.pop() : d.steal(), &x);
    EXPECT_TRUE(d.empty());
  }
}

}  // namespace
}  // namespace lanes::compute::detail
