// The parallel algorithms against their sequential std counterparts, on
// random inputs of sizes around every threshold (empty, one element, the
// grain, the sequential cut-off), with the pool forced and with the
// default small-input path; and exceptions thrown at random positions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <ranges>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <lanes/compute.hpp>

namespace lanes::compute {
namespace {

using u64 = std::uint64_t;

const std::vector<std::size_t> sizes{0,    1,    2,    3,    7,     8,     9,     63,    64,    65,
                                     1000, 4095, 4096, 4097, 16383, 16384, 16385, 20000, 65537, 200000};

std::vector<u64> random_values(std::size_t n, std::uint32_t seed, u64 modulo = 0) {
  std::mt19937_64 rng(seed);
  std::vector<u64> v(n);
  for (auto& x : v) x = modulo != 0 ? rng() % modulo : rng();
  return v;
}

class Algorithms : public ::testing::TestWithParam<bool> {
 protected:
  // true: always through the pool (no small-input path); false: defaults.
  par_options options() const {
    par_options o;
    if (GetParam()) o.sequential_below = std::chrono::nanoseconds(0);
    return o;
  }
  sort_options sorting() const {
    sort_options o;
    if (GetParam()) {
      o.sequential_below_elements = 0;
      o.grain = 16;
    }
    return o;
  }
};

// No piece is cut below the grain, however large the grain: 2 * grain
// must not wrap to 0 for a grain of 2^63 and split every piece.
TEST(AlgorithmsSplitter, NoPieceIsCutBelowTheGrain) {
  for (std::size_t grain : {std::size_t{1}, std::size_t{16}, std::size_t{1} << 63, SIZE_MAX}) {
    for (std::size_t len : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{32},
                            std::size_t{1000}, SIZE_MAX}) {
      detail::splitter s{8, 8, grain};
      const bool split = s.try_split(len, false);
      EXPECT_EQ(split, len >= 2 && len / 2 >= grain) << "grain " << grain << ", len " << len;
    }
  }
}

TEST_P(Algorithms, ForEachAndTransformVisitEveryElementOnce) {
  for (std::size_t n : sizes) {
    std::vector<int> visits(n, 0);
    for_each(
        indices(n), [&](std::size_t i) { ++visits[i]; }, options());
    EXPECT_EQ(std::count(visits.begin(), visits.end(), 1), static_cast<long>(n)) << n;
    const auto in = random_values(n, 1);
    std::vector<u64> out(n), expected(n);
    const auto f = [](u64 x) { return x * 3 + 1; };
    auto end = transform(in, out.begin(), f, options());
    EXPECT_EQ(end, out.end());
    std::transform(in.begin(), in.end(), expected.begin(), f);
    EXPECT_EQ(out, expected) << n;
  }
}

// The identity seeds every piece. One whose moved-from state is not
// itself (four zero counters: moved from, an empty vector) must reach
// every leaf intact: a leaf that copied it after it had been moved into
// the driver would start from an empty vector.
TEST_P(Algorithms, AnIdentityUnlikeItsMovedFromStateSeedsEveryPiece) {
  using counts = std::vector<long>;
  const auto add = [](counts a, const counts& b) {
    if (a.size() != 4 || b.size() != 4) throw std::logic_error("a piece did not start from the identity");
    for (std::size_t k = 0; k < 4; ++k) a[k] += b[k];
    return a;
  };
  const auto one_hot = [](std::size_t i) {
    counts c(4, 0);
    c[i % 4] = 1;
    return c;
  };
  for (std::size_t n : sizes) {
    const counts got = transform_reduce(indices(n), counts(4, 0), add, one_hot, options());
    counts expected(4, 0);
    for (std::size_t i = 0; i < n; ++i) ++expected[i % 4];
    EXPECT_EQ(got, expected) << n;
  }
}

TEST_P(Algorithms, ReductionsEqualTheSequentialOnes) {
  for (std::size_t n : sizes) {
    const auto v = random_values(n, 2);
    EXPECT_EQ(sum(v, options()), std::accumulate(v.begin(), v.end(), u64{0})) << n;
    EXPECT_EQ(transform_reduce(
                  v, u64{0}, std::plus<>{}, [](u64 x) { return x * x; }, options()),
              std::transform_reduce(v.begin(), v.end(), u64{0}, std::plus<>{}, [](u64 x) { return x * x; }))
        << n;
    EXPECT_EQ(count_if(
                  v, [](u64 x) { return x % 3 == 0; }, options()),
              static_cast<std::size_t>(std::count_if(v.begin(), v.end(), [](u64 x) { return x % 3 == 0; })))
        << n;
    // Not commutative: string concatenation must keep the order.
    std::vector<std::string> words(std::min<std::size_t>(n, 5000));
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = std::to_string(v[i] % 10);
    EXPECT_EQ(reduce(words, std::string(), std::plus<>{}, options()),
              std::accumulate(words.begin(), words.end(), std::string()))
        << n;
  }
}

TEST_P(Algorithms, MinAndMaxFindTheFirstExtreme) {
  for (std::size_t n : sizes) {
    const auto v = random_values(n, 3, 50);  // many ties
    const auto lo = min(v, std::less<>{}, options());
    const auto hi = max(v, std::less<>{}, options());
    if (n == 0) {
      EXPECT_FALSE(lo.has_value());
      EXPECT_FALSE(hi.has_value());
      continue;
    }
    EXPECT_EQ(*lo, *std::min_element(v.begin(), v.end())) << n;
    EXPECT_EQ(*hi, *std::max_element(v.begin(), v.end())) << n;
    // Which of equals: compare on the value's key only and return the pair.
    std::vector<std::pair<u64, std::size_t>> keyed(n);
    for (std::size_t i = 0; i < n; ++i) keyed[i] = {v[i], i};
    const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    EXPECT_EQ(min(keyed, by_key, options())->second, std::min_element(keyed.begin(), keyed.end(), by_key)->second);
    EXPECT_EQ(max(keyed, by_key, options())->second, std::max_element(keyed.begin(), keyed.end(), by_key)->second);
  }
}

TEST_P(Algorithms, FindIfReturnsTheFirstMatch) {
  std::mt19937 rng(4);
  for (std::size_t n : sizes) {
    auto v = random_values(n, 5, 1000);
    for (int trial = 0; trial < 4; ++trial) {
      const u64 target = rng() % 1200;  // sometimes absent
      const auto is_target = [target](u64 x) { return x == target; };
      EXPECT_EQ(find_if(v, is_target, options()), std::find_if(v.begin(), v.end(), is_target)) << n;
      EXPECT_EQ(any_of(v, is_target, options()), std::any_of(v.begin(), v.end(), is_target)) << n;
      EXPECT_EQ(all_of(
                    v, [](u64 x) { return x < 1000; }, options()),
                true)
          << n;
    }
  }
}

TEST_P(Algorithms, SortAndStableSortEqualStd) {
  for (std::size_t n : sizes) {
    auto v = random_values(n, 6);
    auto expected = v;
    std::sort(expected.begin(), expected.end());
    sort(v, std::less<>{}, sorting());
    EXPECT_EQ(v, expected) << n;
    // Stability: sort pairs by key only; equal keys keep their index order.
    const auto keys = random_values(n, 7, 16);
    std::vector<std::pair<u64, std::size_t>> keyed(n);
    for (std::size_t i = 0; i < n; ++i) keyed[i] = {keys[i], i};
    auto stable_expected = keyed;
    const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(stable_expected.begin(), stable_expected.end(), by_key);
    stable_sort(keyed, by_key, sorting());
    EXPECT_EQ(keyed, stable_expected) << n;
    auto descending = random_values(n, 8);
    sort(descending, std::greater<>{}, sorting());
    EXPECT_TRUE(std::is_sorted(descending.begin(), descending.end(), std::greater<>{})) << n;
  }
}

TEST_P(Algorithms, InclusiveScanEqualsStd) {
  for (std::size_t n : sizes) {
    const auto v = random_values(n, 9);
    std::vector<u64> out(n), expected(n);
    EXPECT_EQ(inclusive_scan(v, out.begin(), std::plus<>{}, options()), out.end());
    std::inclusive_scan(v.begin(), v.end(), expected.begin());
    EXPECT_EQ(out, expected) << n;
    auto in_place = v;
    inclusive_scan(in_place, in_place.begin(), std::plus<>{}, options());
    EXPECT_EQ(in_place, expected) << n;
    // Not commutative: keeps the order.
    std::vector<std::string> words(std::min<std::size_t>(n, 3000));
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = std::to_string(v[i] % 10);
    std::vector<std::string> scanned(words.size()), scanned_expected(words.size());
    inclusive_scan(words, scanned.begin(), std::plus<>{}, options());
    std::inclusive_scan(words.begin(), words.end(), scanned_expected.begin(), std::plus<>{});
    EXPECT_EQ(scanned, scanned_expected) << n;
  }
}

struct boom : std::runtime_error {
  boom() : std::runtime_error("boom") {}
};

TEST_P(Algorithms, ExceptionsAtRandomPositionsPropagate) {
  std::mt19937 rng(10);
  // n >= 2: with one element, no comparison or scan step ever runs.
  for (std::size_t n : {2UL, 64UL, 4097UL, 100000UL}) {
    for (int trial = 0; trial < 5; ++trial) {
      const std::size_t bad = 1 + rng() % (n - 1);  // the first element of a scan is never an operand
      const auto v = random_values(n, 11);
      const auto throw_at = [&](std::size_t i) {
        if (i == bad) throw boom();
      };
      auto idx = indices(n);
      EXPECT_THROW(for_each(idx, throw_at, options()), boom);
      std::vector<u64> out(n);
      EXPECT_THROW(transform(
                       idx, out.begin(), [&](std::size_t i) { return throw_at(i), u64{i}; }, options()),
                   boom);
      EXPECT_THROW(transform_reduce(
                       idx, u64{0}, std::plus<>{}, [&](std::size_t i) { return throw_at(i), u64{i}; }, options()),
                   boom);
      EXPECT_THROW(count_if(
                       idx, [&](std::size_t i) { return throw_at(i), true; }, options()),
                   boom);
      EXPECT_THROW(find_if(
                       idx, [&](std::size_t i) { return throw_at(i), false; }, options()),
                   boom);
      EXPECT_THROW(min(
                       idx,
                       [&](std::size_t a, std::size_t b) {
                         throw_at(a);
                         throw_at(b);
                         return a < b;
                       },
                       options()),
                   boom);
      std::vector<u64> sortable = v;
      const u64 poison = sortable[bad];
      EXPECT_THROW(sort(
                       sortable,
                       [poison](u64 a, u64 b) {
                         if (a == poison || b == poison) throw boom();
                         return a < b;
                       },
                       sorting()),
                   boom);
      std::vector<u64> scanned(n);
      EXPECT_THROW(inclusive_scan(
                       idx, scanned.begin(),
                       [&](std::size_t a, std::size_t b) {
                         throw_at(b);
                         return a + b;
                       },
                       options()),
                   boom);
    }
  }
}

TEST(AlgorithmsNested, AParallelAlgorithmInsideAJoinInsideAScope) {
  auto p = pool::builder().threads(3).build();
  const auto v = random_values(50'000, 12);
  const u64 expected = std::accumulate(v.begin(), v.end(), u64{0});
  std::atomic<int> right{0};
  p.install([&] {
    scope([&](task_scope& s) {
      for (int i = 0; i < 4; ++i) {
        s.spawn([&] {
          auto [total, unit] = join([&] { return sum(v); }, [&] { right.fetch_add(1); });
          (void)unit;
          EXPECT_EQ(total, expected);
        });
      }
    });
  });
  EXPECT_EQ(right.load(), 4);
}

TEST(AlgorithmsSmallInput, WorkProjectedUnderTheThresholdNeverLeavesTheCaller) {
  // 1,000 cheap elements against a threshold no machine can miss (the
  // default 50 us is a timing, and timing is not a test: a preempted or
  // sanitized probe may project more): every element runs on the caller.
  const auto me = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  par_options generous;
  generous.sequential_below = std::chrono::seconds(10);
  for_each(
      indices(1000),
      [&](std::size_t) {
        if (std::this_thread::get_id() != me) elsewhere.fetch_add(1);
      },
      generous);
  EXPECT_EQ(elsewhere.load(), 0);
}

TEST(AlgorithmsSmallInput, FewHeavyElementsStillGoToThePool) {
  // 64 elements of ~200 us each: the probe sees the weight and hands the
  // rest to the (default) pool.
  std::atomic<int> on_workers{0};
  for_each(indices(64), [&](std::size_t) {
    if (default_pool().owns_current_thread()) on_workers.fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (std::chrono::steady_clock::now() < until) {
    }
  });
  EXPECT_GT(on_workers.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Compute, Algorithms, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "ThroughThePool" : "Defaults"; });

}  // namespace
}  // namespace lanes::compute
