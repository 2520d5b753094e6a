// The lab's own checks: a wrong is_sequence would let a broken ring pass
// S10.
#include "spsc_bench_support.hpp"

#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace lanes::bench {
namespace {

std::vector<std::uint64_t> counting(std::size_t n, std::uint64_t first) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = first + i;
  return v;
}

TEST(IsSequence, AcceptsEveryLengthOfACountingRun) {
  // Lengths around the four-at-a-time step and its tail.
  for (std::size_t n = 0; n <= 19; ++n) {
    EXPECT_TRUE(is_sequence(counting(n, 1000), 1000)) << n;
  }
  EXPECT_TRUE(is_sequence(counting(256, 0), 0));
}

TEST(IsSequence, FindsOneWrongValueAtAnyPosition) {
  for (std::size_t n = 1; n <= 19; ++n) {
    for (std::size_t wrong = 0; wrong < n; ++wrong) {
      auto v = counting(n, 7);
      v[wrong] += 1;
      EXPECT_FALSE(is_sequence(v, 7)) << "length " << n << ", wrong at " << wrong;
      v[wrong] -= 2;  // one below
      EXPECT_FALSE(is_sequence(v, 7)) << "length " << n << ", wrong at " << wrong;
      v[wrong] = (7 + wrong) ^ (std::uint64_t{1} << 63);  // only the high bit differs
      EXPECT_FALSE(is_sequence(v, 7)) << "length " << n << ", wrong at " << wrong;
    }
  }
}

TEST(IsSequence, ChecksAgainstTheGivenStart) {
  const auto v = counting(12, 500);
  EXPECT_FALSE(is_sequence(v, 499));
  EXPECT_FALSE(is_sequence(v, 501));
  // Two swapped neighbours hold the same values: still out of order.
  auto swapped = v;
  std::swap(swapped[4], swapped[5]);
  EXPECT_FALSE(is_sequence(swapped, 500));
}

TEST(IsSequence, CountsThroughTheTopOfTheRange) {
  const std::uint64_t near_top = std::numeric_limits<std::uint64_t>::max() - 5;
  EXPECT_TRUE(is_sequence(counting(6, near_top), near_top));
}

}  // namespace
}  // namespace lanes::bench
