// join: results of every shape, exceptions from either side with their
// types, the other side always completing, calls from outside any pool.
#include <lanes/compute/join.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include <lanes/compute/pool.hpp>

namespace lanes::compute {
namespace {

TEST(Join, ReturnsBothResults) {
  auto p = pool::builder().threads(2).build();
  auto [a, b] = p.install([] { return join([] { return 6; }, [] { return std::string("seven"); }); });
  EXPECT_EQ(a, 6);
  EXPECT_EQ(b, "seven");
}

TEST(Join, VoidSidesAndReferences) {
  auto p = pool::builder().threads(2).build();
  int x = 0;
  int y = 0;
  p.install([&] { join([&] { x = 1; }, [&] { y = 2; }); });
  EXPECT_EQ(x + y, 3);
  auto [unit, ref] = p.install([&] { return join([] {}, [&]() -> int& { return y; }); });
  (void)unit;
  ref = 40;
  EXPECT_EQ(y, 40);
}

TEST(Join, FromAPlainThreadRunsInTheDefaultPool) {
  std::atomic<bool> a_in_pool{false};
  std::atomic<bool> b_in_pool{false};
  join([&] { a_in_pool = default_pool().owns_current_thread(); },
       [&] { b_in_pool = default_pool().owns_current_thread(); });
  EXPECT_TRUE(a_in_pool.load());
  EXPECT_TRUE(b_in_pool.load());
}

TEST(Join, AnExceptionFromAKeepsItsTypeAndBStillRuns) {
  auto p = pool::builder().threads(2).build();
  std::atomic<bool> b_done{false};
  EXPECT_THROW(p.install([&] {
    join([]() -> int { throw std::out_of_range("a"); },
         [&] {
           std::this_thread::sleep_for(std::chrono::milliseconds(5));
           b_done = true;
         });
  }),
               std::out_of_range);
  EXPECT_TRUE(b_done.load());
}

TEST(Join, AnExceptionFromBKeepsItsType) {
  auto p = pool::builder().threads(2).build();
  try {
    p.install([] { join([] {}, [] { throw std::invalid_argument("b"); }); });
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "b");
  }
}

TEST(Join, WhenBothThrowAsExceptionWins) {
  auto p = pool::builder().threads(2).build();
  for (int i = 0; i < 50; ++i) {
    try {
      p.install([] { join([] { throw std::out_of_range("a"); }, [] { throw std::invalid_argument("b"); }); });
      ADD_FAILURE() << "no exception";
    } catch (const std::out_of_range&) {
    } catch (...) {
      ADD_FAILURE() << "b's exception won";
    }
  }
}

TEST(Join, BIsStolenWhileALingers) {
  // a blocks until b has run: only a thief can have run b.
  auto p = pool::builder().threads(2).build();
  const bool b_ran_elsewhere = p.install([] {
    std::atomic<bool> b_ran{false};
    auto [unused, other_thread] = join(
        [&] {
          while (!b_ran.load()) std::this_thread::yield();
          return 0;
        },
        [&, me = std::this_thread::get_id()] {
          b_ran = true;
          return std::this_thread::get_id() != me;
        });
    (void)unused;
    return other_thread;
  });
  EXPECT_TRUE(b_ran_elsewhere);
  EXPECT_GE(p.metrics().workers[0].steals + p.metrics().workers[1].steals, 1U);
}

std::uint64_t fib(unsigned n) {
  if (n < 2) return n;
  auto [a, b] = join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}

TEST(Join, RecursiveFib) {
  auto p = pool::builder().threads(2).build();
  EXPECT_EQ(p.install([] { return fib(20); }), 6765U);
  EXPECT_EQ(fib(15), 610U);  // from outside: the default pool
}

}  // namespace
}  // namespace lanes::compute
