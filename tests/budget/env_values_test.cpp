// Every bad value of a LANES_* variable is a config_error naming it.
#include "budget/env_values.hpp"

#include <gtest/gtest.h>

#include <lanes/config_error.hpp>

namespace lanes::detail {
namespace {

std::string rejection(const std::optional<std::string>& text, unsigned max = 64) {
  try {
    count_from_env("LANES_CPUS", text, max);
  } catch (const config_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(EnvValues, UnsetIsNoOverride) { EXPECT_EQ(count_from_env("LANES_CPUS", std::nullopt, 64), std::nullopt); }

TEST(EnvValues, AcceptsWholeNumbersInRange) {
  EXPECT_EQ(count_from_env("LANES_CPUS", "1", 64), 1U);
  EXPECT_EQ(count_from_env("LANES_CPUS", "64", 64), 64U);
  EXPECT_EQ(count_from_env("LANES_CPUS", " 8\n", 64), 8U);
}

TEST(EnvValues, RejectsZero) {
  EXPECT_EQ(rejection("0"), "LANES_CPUS=\"0\": must be at least 1; unset it to use the default");
}

TEST(EnvValues, RejectsNegative) {
  EXPECT_EQ(rejection("-2"), "LANES_CPUS=\"-2\": negative; expected a whole number from 1 to 64");
}

TEST(EnvValues, RejectsEmptyButSet) {
  EXPECT_EQ(rejection(""),
            "LANES_CPUS is set but empty: unset it to use the default, or give a whole number from 1 to 64");
}

TEST(EnvValues, RejectsNonNumeric) {
  EXPECT_EQ(rejection("four"), "LANES_CPUS=\"four\": not a number; expected a whole number from 1 to 64");
  EXPECT_EQ(rejection("4x"), "LANES_CPUS=\"4x\": not a number; expected a whole number from 1 to 64");
  EXPECT_EQ(rejection("1.5"), "LANES_CPUS=\"1.5\": not a number; expected a whole number from 1 to 64");
  EXPECT_EQ(rejection("   "), "LANES_CPUS=\"   \": not a number; expected a whole number from 1 to 64");
}

TEST(EnvValues, RejectsAbsurd) {
  EXPECT_EQ(rejection("65"), "LANES_CPUS=\"65\": larger than 64; expected a whole number from 1 to 64");
  EXPECT_EQ(rejection("99999999999999999999999"),
            "LANES_CPUS=\"99999999999999999999999\": far too large; expected a whole number from 1 to 64");
}

TEST(EnvValues, Flags) {
  EXPECT_EQ(flag_from_env("LANES_OVERSUBSCRIBE", std::nullopt), std::nullopt);
  EXPECT_EQ(flag_from_env("LANES_OVERSUBSCRIBE", "1"), true);
  EXPECT_EQ(flag_from_env("LANES_OVERSUBSCRIBE", "yes"), true);
  EXPECT_EQ(flag_from_env("LANES_OVERSUBSCRIBE", "off"), false);
  EXPECT_THROW(flag_from_env("LANES_OVERSUBSCRIBE", "maybe"), config_error);
  EXPECT_THROW(flag_from_env("LANES_OVERSUBSCRIBE", ""), config_error);
}

TEST(BuilderValues, RejectZeroAndAbsurd) {
  EXPECT_EQ(checked_builder_count("cpus", 3, 8), 3U);
  EXPECT_THROW(checked_builder_count("cpus", 0, 8), config_error);
  EXPECT_THROW(checked_builder_count("cpus", 9, 8), config_error);
}

}  // namespace
}  // namespace lanes::detail
