// The split, the precedence of builder over environment over machine, and
// the "why" of every number.
#include <gtest/gtest.h>

#include <map>

#include <lanes/budget.hpp>

namespace lanes {
namespace {

cpu_limits machine(unsigned affinity, std::optional<cpu_quota> quota = std::nullopt) {
  cpu_limits limits;
  limits.affinity_cpus = affinity;
  if (quota) limits.quotas.push_back(*quota);
  return limits;
}

env_lookup fake_env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

budget_builder on(cpu_limits limits) {
  budget_builder b;
  b.limits(std::move(limits)).ignore_environment();
  return b;
}

TEST(Budget, DefaultSplitFollowsTheSeeds) {
  const auto b = on(machine(8)).build();
  EXPECT_EQ(b.cpus.value, 8U);
  EXPECT_EQ(b.cpus.source, budget_source::affinity);
  EXPECT_EQ(b.compute_threads.value, 8U);
  EXPECT_EQ(b.io_threads.value, 4U);
  EXPECT_EQ(b.blocking_max.value, 512U);
  EXPECT_EQ(b.io_threads.source, budget_source::rule);
  EXPECT_FALSE(b.oversubscribe);
}

TEST(Budget, OneCpuStillHasOneIoWorker) {
  const auto b = on(machine(1)).build();
  EXPECT_EQ(b.cpus.value, 1U);
  EXPECT_EQ(b.io_threads.value, 1U);
  EXPECT_EQ(b.compute_threads.value, 1U);
}

TEST(Budget, CgroupQuotaWinsWhenTighter) {
  const auto b = on(machine(8, cpu_quota{"/sys/fs/cgroup/x", 2, 150000, 100000})).build();
  EXPECT_EQ(b.cpus.value, 2U);
  EXPECT_EQ(b.cpus.source, budget_source::cgroup_v2);
  EXPECT_NE(b.cpus.why.find("/sys/fs/cgroup/x"), std::string::npos) << b.cpus.why;
  EXPECT_NE(b.cpus.why.find("1.50 CPUs, rounded up to 2"), std::string::npos) << b.cpus.why;
  EXPECT_EQ(b.io_threads.value, 1U);
}

TEST(Budget, AffinityWinsWhenTighter) {
  const auto b = on(machine(2, cpu_quota{"/c", 1, 400000, 100000})).build();
  EXPECT_EQ(b.cpus.value, 2U);
  EXPECT_EQ(b.cpus.source, budget_source::affinity);
}

TEST(Budget, EnvironmentLowersTheBudget) {
  const auto b = on(machine(8)).environment(fake_env({{"LANES_CPUS", "3"}})).build();
  EXPECT_EQ(b.cpus.value, 3U);
  EXPECT_EQ(b.cpus.source, budget_source::environment);
  EXPECT_EQ(b.compute_threads.value, 3U);
  EXPECT_EQ(b.io_threads.value, 1U);
  EXPECT_EQ(b.environment, std::vector<std::string>{"LANES_CPUS=3"});
}

TEST(Budget, EnvironmentCannotRaiseTheBudgetUnlessAsked) {
  const auto capped = on(machine(2)).environment(fake_env({{"LANES_CPUS", "16"}})).build();
  EXPECT_EQ(capped.cpus.value, 2U);
  EXPECT_EQ(capped.cpus.source, budget_source::affinity);
  EXPECT_NE(capped.cpus.why.find("LANES_CPUS=16 asks for more"), std::string::npos) << capped.cpus.why;
  EXPECT_NE(capped.cpus.why.find("LANES_OVERSUBSCRIBE=1"), std::string::npos) << capped.cpus.why;

  const auto raised =
      on(machine(2)).environment(fake_env({{"LANES_CPUS", "16"}, {"LANES_OVERSUBSCRIBE", "1"}})).build();
  EXPECT_EQ(raised.cpus.value, 16U);
  EXPECT_EQ(raised.cpus.source, budget_source::environment);
  EXPECT_TRUE(raised.oversubscribe);
}

TEST(Budget, LaneThreadsAreCappedByTheBudget) {
  const auto capped = on(machine(4)).environment(fake_env({{"LANES_COMPUTE_THREADS", "9"}})).build();
  EXPECT_EQ(capped.compute_threads.value, 4U);
  const auto raised = on(machine(4)).allow_oversubscribe().io_threads(9).build();
  EXPECT_EQ(raised.io_threads.value, 9U);
  EXPECT_EQ(raised.io_threads.source, budget_source::builder);
}

TEST(Budget, BuilderWinsOverEnvironment) {
  const auto b = on(machine(8))
                     .environment(fake_env({{"LANES_IO_THREADS", "2"}, {"LANES_BLOCKING_MAX", "64"}}))
                     .io_threads(3)
                     .build();
  EXPECT_EQ(b.io_threads.value, 3U);
  EXPECT_EQ(b.io_threads.source, budget_source::builder);
  EXPECT_EQ(b.blocking_max.value, 64U);
  EXPECT_EQ(b.blocking_max.source, budget_source::environment);
}

TEST(Budget, BlockingMaxIsNotCappedByCpus) {
  const auto b = on(machine(1)).blocking_max(2000).build();
  EXPECT_EQ(b.blocking_max.value, 2000U);
}

TEST(Budget, BadEnvironmentIsAnErrorEvenWhenTheBuilderOverridesIt) {
  EXPECT_THROW(on(machine(4)).environment(fake_env({{"LANES_CPUS", "0"}})).cpus(2).build(), config_error);
  EXPECT_THROW(on(machine(4)).environment(fake_env({{"LANES_BLOCKING_MAX", "lots"}})).build(), config_error);
  EXPECT_THROW(on(machine(4)).environment(fake_env({{"LANES_OVERSUBSCRIBE", "2"}})).build(), config_error);
}

TEST(Budget, BuilderRejectsZero) {
  budget_builder b;
  EXPECT_THROW(b.cpus(0), config_error);
  EXPECT_THROW(b.io_threads(0), config_error);
  EXPECT_THROW(b.compute_threads(0), config_error);
  EXPECT_THROW(b.blocking_max(0), config_error);
  EXPECT_THROW(b.cpus(max_cpus + 1), config_error);
}

TEST(Budget, ProbesAFixtureTree) {
  budget_builder b;
  b.probe({std::string(LANES_FIXTURES_DIR) + "/v1", 8}).ignore_environment();
  const auto result = b.build();
  EXPECT_EQ(result.cpus.value, 2U);
  EXPECT_EQ(result.cpus.source, budget_source::cgroup_v1);
}

TEST(Budget, SourcesHaveNames) {
  EXPECT_EQ(to_string(budget_source::cgroup_v1), "cgroup_v1");
  EXPECT_EQ(to_string(budget_source::environment), "environment");
}

}  // namespace
}  // namespace lanes
