// scope: borrowing, nested spawning, waiting for everything, exceptions.
#include <lanes/compute/scope.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <lanes/compute/join.hpp>
#include <lanes/compute/pool.hpp>

namespace lanes::compute {
namespace {

TEST(Scope, SpawnedJobsBorrowTheStackAndAllFinish) {
  auto p = pool::builder().threads(2).build();
  std::vector<int> out(1000, 0);
  p.install([&] {
    scope([&](task_scope& s) {
      for (std::size_t i = 0; i < out.size(); ++i) s.spawn([&out, i] { out[i] = static_cast<int>(i); });
    });
  });
  std::vector<int> expected(out.size());
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(out, expected);
}

TEST(Scope, JobsSpawnJobsAndTheScopeWaitsForAll) {
  std::atomic<int> leaves{0};
  const int returned = scope([&](task_scope& s) {  // from a plain thread: the default pool
    for (int i = 0; i < 8; ++i) {
      s.spawn([&leaves](task_scope& inner) {
        for (int k = 0; k < 8; ++k) inner.spawn([&leaves] { leaves.fetch_add(1); });
      });
    }
    return 42;
  });
  EXPECT_EQ(returned, 42);
  EXPECT_EQ(leaves.load(), 64);
}

TEST(Scope, AJobsExceptionIsRethrownAfterEveryJobRan) {
  auto p = pool::builder().threads(2).build();
  std::atomic<int> ran{0};
  EXPECT_THROW(p.install([&] {
    scope([&](task_scope& s) {
      for (int i = 0; i < 100; ++i) {
        s.spawn([&ran, i] {
          ran.fetch_add(1);
          if (i == 13) throw std::domain_error("13");
        });
      }
    });
  }),
               std::domain_error);
  EXPECT_EQ(ran.load(), 100);
}

TEST(Scope, TheBodysExceptionWaitsForItsJobs) {
  auto p = pool::builder().threads(2).build();
  std::atomic<int> ran{0};
  EXPECT_THROW(p.install([&] {
    scope([&](task_scope& s) {
      for (int i = 0; i < 10; ++i) s.spawn([&ran] { ran.fetch_add(1); });
      throw std::length_error("body");
    });
  }),
               std::length_error);
  EXPECT_EQ(ran.load(), 10);
}

TEST(Scope, NestedInsideJoinInsideScope) {
  auto p = pool::builder().threads(3).build();
  std::atomic<long> total{0};
  p.install([&] {
    scope([&](task_scope& s) {
      for (int i = 0; i < 4; ++i) {
        s.spawn([&total] {
          join([&] { scope([&](task_scope& in) { in.spawn([&] { total.fetch_add(1); }); }); },
               [&] { total.fetch_add(10); });
        });
      }
    });
  });
  EXPECT_EQ(total.load(), 44);
}

}  // namespace
}  // namespace lanes::compute
