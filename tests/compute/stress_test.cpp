// Concurrency stress for the compute lane: the deque under one owner and
// several thieves, and random fork-join trees with exceptions, nested
// scopes and isolation, checked against sequential answers.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include <lanes/compute/detail/work_stealing_deque.hpp>
#include <lanes/compute/isolate.hpp>
#include <lanes/compute/join.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/compute/scope.hpp>

#include "sanitized_build.hpp"

namespace lanes::compute {
namespace {

constexpr int scale = lanes::detail::stress_divisor;

TEST(ComputeStress, DequeEveryItemIsTakenExactlyOnce) {
  // One owner pushes and pops in random bursts while three thieves steal;
  // each item must be taken by exactly one of them.
  const int items = 200'000 / scale;
  detail::work_stealing_deque<std::int64_t*> d(8);  // small: growth happens under contention
  std::vector<std::int64_t> values(static_cast<std::size_t>(items));
  std::vector<std::atomic<int>> taken(static_cast<std::size_t>(items));
  std::atomic<bool> done{false};
  const auto take = [&](std::int64_t* p) { taken[static_cast<std::size_t>(*p)].fetch_add(1); };
  std::vector<std::thread> thieves;
  for (int t = 0; t < 3; ++t) {
    thieves.emplace_back([&] {
      while (!done.load()) {
        if (auto* p = d.steal()) take(p);
      }
      while (auto* p = d.steal()) take(p);
    });
  }
  std::mt19937 rng(11);
  for (int i = 0; i < items;) {
    const int burst = 1 + static_cast<int>(rng() % 64);
    for (int k = 0; k < burst && i < items; ++k, ++i) {
      values[static_cast<std::size_t>(i)] = i;
      d.push(&values[static_cast<std::size_t>(i)]);
    }
    const int pops = static_cast<int>(rng() % 64);
    for (int k = 0; k < pops; ++k) {
      if (auto* p = d.pop()) take(p);
    }
  }
  while (auto* p = d.pop()) take(p);
  done.store(true);
  for (auto& t : thieves) t.join();
  int wrong = 0;
  for (auto& t : taken) wrong += t.load() != 1;
  EXPECT_EQ(wrong, 0);
}

std::uint64_t fib(unsigned n) {
  if (n < 2) return n;
  auto [a, b] = join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}

TEST(ComputeStress, FibByJoinOnManyPoolSizes) {
  for (std::size_t threads : {1U, 2U, 3U, 5U}) {
    auto p = pool::builder().threads(threads).build();
    EXPECT_EQ(p.install([] { return fib(lanes::detail::sanitized_build ? 16 : 22); }),
              lanes::detail::sanitized_build ? 987U : 17711U)
        << threads << " threads";
  }
}

// A random tree: each node joins, or opens a scope of a few spawns, or
// isolates, or throws; the result is compared with the same tree walked
// sequentially (same seed, same decisions).
struct tree_error : std::runtime_error {
  explicit tree_error(std::uint64_t at) : std::runtime_error("tree"), where(at) {}
  std::uint64_t where;
};

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

std::uint64_t walk(std::uint64_t seed, int depth, bool parallel) {
  const std::uint64_t h = mix(seed);
  if (depth == 0) {
    if (h % 997 == 0) throw tree_error(seed);
    return h & 0xffff;
  }
  switch (h % 4) {
    case 0:
    case 1: {
      auto left = [&] { return walk(seed * 2 + 1, depth - 1, parallel); };
      auto right = [&] { return walk(seed * 2 + 2, depth - 1, parallel); };
      if (!parallel) {
        // Sequentially, the left exception wins, as in join.
        std::uint64_t l = 0;
        std::exception_ptr le;
        try {
          l = left();
        } catch (...) {
          le = std::current_exception();
        }
        const std::uint64_t r = [&] {
          try {
            return right();
          } catch (...) {
            if (le) std::rethrow_exception(le);
            throw;
          }
        }();
        if (le) std::rethrow_exception(le);
        return l + r;
      }
      auto [l, r] = join(left, right);
      return l + r;
    }
    case 2: {
      std::atomic<std::uint64_t> total{0};
      const auto body = [&](std::uint64_t k) { total.fetch_add(walk(seed * 4 + k, depth - 1, parallel)); };
      if (!parallel) {
        for (std::uint64_t k = 0; k < 3; ++k) body(k);  // sequential: stops at the first throw
        return total.load();
      }
      scope([&](task_scope& s) {
        for (std::uint64_t k = 0; k < 3; ++k) s.spawn([&body, k] { body(k); });
      });
      return total.load();
    }
    default:
      if (!parallel) return walk(seed + 7, depth - 1, parallel);
      return isolate([&] { return walk(seed + 7, depth - 1, parallel); });
  }
}

// On a pool of one (no thieves: its deque takes the unshared pop) and of three.
TEST(ComputeStress, RandomTreesMatchTheirSequentialWalk) {
  for (std::size_t threads : {1U, 3U}) {
    auto p = pool::builder().threads(threads).build();
    const int trees = 200 / scale;
    int failures_seen = 0;
    for (int t = 0; t < trees; ++t) {
      const auto seed = static_cast<std::uint64_t>(t) * 7919;
      std::uint64_t expected = 0;
      bool expect_throw = false;
      try {
        expected = walk(seed, 9, false);
      } catch (const tree_error&) {
        expect_throw = true;
      }
      try {
        const std::uint64_t got = p.install([&] { return walk(seed, 9, true); });
        EXPECT_FALSE(expect_throw) << "tree " << t << ", " << threads << " threads";
        EXPECT_EQ(got, expected) << "tree " << t << ", " << threads << " threads";
      } catch (const tree_error&) {
        ++failures_seen;
        // Scope order differs from the sequential walk, so only "it threw" is compared.
        EXPECT_TRUE(expect_throw) << "tree " << t << ", " << threads << " threads";
      }
    }
    EXPECT_GT(failures_seen, 0);  // the trees do exercise exceptions
  }
}

}  // namespace
}  // namespace lanes::compute
