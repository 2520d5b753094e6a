// The measurement helpers of the `lanes` command and the benchmark lab: a
// wrong median or lag summary would misreport every result.
#include "measure.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace lanes::tool {
namespace {

TEST(Median, OddAndEvenCountsAndOrder) {
  EXPECT_DOUBLE_EQ(median({}), 0.0);
  EXPECT_DOUBLE_EQ(median({3.0}), 3.0);
  EXPECT_DOUBLE_EQ(median({2.0, 8.0}), 5.0);
  EXPECT_DOUBLE_EQ(median({9.0, 1.0, 5.0}), 5.0);
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
}

TEST(SummarizeLags, WorstP99AndCount) {
  EXPECT_EQ(summarize_lags({}).ticks, 0u);
  EXPECT_DOUBLE_EQ(summarize_lags({}).worst_us, 0.0);
  std::vector<double> lags;
  for (int i = 200; i >= 1; --i) lags.push_back(i);  // 1..200, reversed
  const auto s = summarize_lags(lags);
  EXPECT_EQ(s.ticks, 200u);
  EXPECT_DOUBLE_EQ(s.worst_us, 200.0);
  EXPECT_DOUBLE_EQ(s.p99_us, 199.0);  // index 198 of the sorted 200
}

TEST(RunIsolated, ReturnsTheChildsNumbersAndReportsItsFailure) {
  const auto numbers = run_isolated([] { return std::vector<double>{1.5, -2.0, 3.25}; });
  EXPECT_EQ(numbers, (std::vector<double>{1.5, -2.0, 3.25}));
  EXPECT_THROW(run_isolated([]() -> std::vector<double> { throw std::runtime_error("child"); }), std::runtime_error);
}

}  // namespace
}  // namespace lanes::tool
