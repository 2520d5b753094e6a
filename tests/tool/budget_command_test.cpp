// `lanes budget --json` carries every key the issue names, from one budget.
#include "budget_command.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace lanes::tool {
namespace {

budget sample(bool with_quota) {
  cpu_limits limits;
  limits.affinity_cpus = 4;
  if (with_quota) {
    limits.quotas.push_back({"/sys/fs/cgroup/cpu/app", 1, 150000, 100000});
    limits.throttling.push_back({"/sys/fs/cgroup/cpu/app/cpu.stat", 1, 10, 2, 300});
  }
  limits.problems.push_back("/x: \"odd\"");
  return budget_builder().limits(limits).ignore_environment().build();
}

TEST(BudgetCommand, JsonWithQuota) {
  std::ostringstream out;
  print_budget_json(sample(true), out);
  const auto json = out.str();
  EXPECT_EQ(
      json.rfind(
          R"({"cpus":2,"io_threads":1,"compute_threads":2,"blocking_max":512,"source":"cgroup_v1",)"
          R"("affinity_cpus":4,"cgroup_quota_cpus":1.5,"throttled":{"stat_file":"/sys/fs/cgroup/cpu/app/cpu.stat",)"
          R"("cgroup_version":1,"nr_periods":10,"nr_throttled":2,"throttled_usec":300},)",
          0),
      0U)
      << json;
  EXPECT_NE(json.find(R"("problems":["/x: \"odd\""])"), std::string::npos) << json;
  EXPECT_EQ(json.back(), '\n');
}

TEST(BudgetCommand, JsonWithoutQuotaHasNulls) {
  std::ostringstream out;
  print_budget_json(sample(false), out);
  EXPECT_NE(out.str().find(R"("source":"affinity","affinity_cpus":4,"cgroup_quota_cpus":null,"throttled":null)"),
            std::string::npos)
      << out.str();
}

TEST(BudgetCommand, TextNamesEveryPart) {
  std::ostringstream out;
  print_budget_text(sample(true), out);
  const auto text = out.str();
  for (const char* part : {"affinity mask", "cgroup quota", "v1 /sys/fs/cgroup/cpu/app: 150000/100000 us = 1.50 CPUs",
                           "throttled in 2 of 10 periods", "problem", "compute threads", "io threads", "blocking max",
                           "cgroup_v1: cgroup v1 quota"}) {
    EXPECT_NE(text.find(part), std::string::npos) << "missing '" << part << "' in\n" << text;
  }
}

}  // namespace
}  // namespace lanes::tool
