// Probing fixture trees copied from real v1, v2, hybrid and broken layouts.
#include <gtest/gtest.h>

#include <algorithm>

#include <lanes/budget.hpp>

namespace lanes {
namespace {

cpu_limits probe_fixture(const std::string& name, unsigned affinity = 8) {
  return probe_cpu_limits({std::string(LANES_FIXTURES_DIR) + "/" + name, affinity});
}

bool mentions(const std::vector<std::string>& problems, std::string_view text) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string& p) { return p.find(text) != std::string::npos; });
}

TEST(CgroupProbe, V1HostViewRoundsFractionalQuotaUp) {
  const auto limits = probe_fixture("v1");
  ASSERT_EQ(limits.quotas.size(), 1U);
  EXPECT_EQ(limits.quotas[0].cgroup_dir, "/sys/fs/cgroup/cpu,cpuacct/docker/abc");
  EXPECT_EQ(limits.quotas[0].cgroup_version, 1);
  EXPECT_DOUBLE_EQ(limits.quotas[0].cpus(), 1.5);
  EXPECT_EQ(limits.allowed_cpus(), 2U);
  EXPECT_TRUE(limits.problems.empty()) << limits.problems.front();
  ASSERT_EQ(limits.throttling.size(), 1U);
  EXPECT_EQ(limits.throttling[0].nr_periods, 420U);
  EXPECT_EQ(limits.throttling[0].nr_throttled, 17U);
  EXPECT_EQ(limits.throttling[0].throttled_usec, 2'500'000U);  // from 2.5e9 ns
}

TEST(CgroupProbe, V1ContainerViewReadsTheMountPoint) {
  const auto limits = probe_fixture("v1_container");
  ASSERT_EQ(limits.quotas.size(), 1U);
  EXPECT_EQ(limits.quotas[0].cgroup_dir, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(limits.allowed_cpus(), 1U);  // 0.5 CPU rounds up to 1, never below
  ASSERT_EQ(limits.throttling.size(), 1U);
}

TEST(CgroupProbe, V2LeafQuota) {
  const auto limits = probe_fixture("v2");
  ASSERT_EQ(limits.quotas.size(), 1U);
  EXPECT_EQ(limits.quotas[0].cgroup_dir, "/sys/fs/cgroup/user.slice/app.service");
  EXPECT_EQ(limits.quotas[0].cgroup_version, 2);
  EXPECT_EQ(limits.allowed_cpus(), 2U);
  ASSERT_EQ(limits.throttling.size(), 1U);
  EXPECT_EQ(limits.throttling[0].nr_throttled, 3U);
  EXPECT_EQ(limits.throttling[0].throttled_usec, 12'000U);
}

TEST(CgroupProbe, V2TakesTheTightestAncestor) {
  const auto limits = probe_fixture("v2_nested");
  EXPECT_EQ(limits.quotas.size(), 2U);
  const auto tightest = limits.tightest_quota();
  ASSERT_TRUE(tightest.has_value());
  EXPECT_EQ(tightest->cgroup_dir, "/sys/fs/cgroup/a");
  EXPECT_EQ(limits.allowed_cpus(), 2U);
  // The leaf's cpu.stat has no throttling counters; the quota holder's has.
  ASSERT_EQ(limits.throttling.size(), 1U);
  EXPECT_EQ(limits.throttling[0].stat_file, "/sys/fs/cgroup/a/cpu.stat");
  EXPECT_EQ(limits.throttling[0].throttled_usec, 777U);
}

TEST(CgroupProbe, HybridReadsTheV1CpuControllerAndTheV2Tree) {
  const auto limits = probe_fixture("hybrid", 16);
  ASSERT_EQ(limits.quotas.size(), 1U);
  EXPECT_EQ(limits.quotas[0].cgroup_dir, "/sys/fs/cgroup/cpu/lanes");
  EXPECT_EQ(limits.allowed_cpus(), 3U);
  EXPECT_TRUE(limits.problems.empty()) << limits.problems.front();
}

TEST(CgroupProbe, AffinityBindsWhenTighterThanTheQuota) { EXPECT_EQ(probe_fixture("hybrid", 2).allowed_cpus(), 2U); }

TEST(CgroupProbe, MaxMeansNoLimit) {
  const auto limits = probe_fixture("v2_max");
  EXPECT_TRUE(limits.quotas.empty());
  EXPECT_TRUE(limits.problems.empty()) << limits.problems.front();
  EXPECT_EQ(limits.allowed_cpus(), 8U);
}

TEST(CgroupProbe, MissingFilesMeanNoLimitAndAreReported) {
  const auto limits = probe_fixture("missing");
  EXPECT_TRUE(limits.quotas.empty());
  EXPECT_EQ(limits.allowed_cpus(), 8U);
  EXPECT_TRUE(mentions(limits.problems, "cpu.cfs_quota_us: not found"));
}

TEST(CgroupProbe, GarbageIsReportedNeverFatal) {
  const auto limits = probe_fixture("garbage");
  EXPECT_TRUE(limits.quotas.empty());
  EXPECT_EQ(limits.allowed_cpus(), 8U);
  EXPECT_TRUE(mentions(limits.problems, "/sys/fs/cgroup/cpu/g/cpu.cfs_quota_us: cannot parse 'lots'"));
  EXPECT_TRUE(mentions(limits.problems, "/sys/fs/cgroup/unified/g/cpu.max: cannot parse"));
  EXPECT_TRUE(mentions(limits.problems, "/sys/fs/cgroup/unified/cpu.max: cannot parse '-5 0'"));
  EXPECT_TRUE(mentions(limits.problems, "cpu.stat: cannot parse 'nr_periods many'"));
  EXPECT_TRUE(mentions(limits.problems, "/proc/self/cgroup: 3 malformed line(s)"));
  EXPECT_TRUE(mentions(limits.problems, "/proc/self/mountinfo: 2 malformed line(s)"));
  EXPECT_TRUE(limits.throttling.empty());
}

TEST(CgroupProbe, EscapedMountPoint) {
  const auto limits = probe_fixture("escaped");
  ASSERT_EQ(limits.quotas.size(), 1U);
  EXPECT_EQ(limits.quotas[0].cgroup_dir, "/cg root/job");
  EXPECT_EQ(limits.allowed_cpus(), 1U);
}

TEST(CgroupProbe, NothingReadableMeansNoLimit) {
  const auto limits = probe_fixture("no_such_fixture", 4);
  EXPECT_TRUE(limits.quotas.empty());
  EXPECT_EQ(limits.allowed_cpus(), 4U);
  EXPECT_TRUE(mentions(limits.problems, "/proc/self/cgroup: cannot be read"));
}

TEST(CgroupProbe, TheRealMachineAnswersSomethingSane) {
  const auto limits = probe_cpu_limits();
  EXPECT_GE(limits.affinity_cpus, 1U);
  EXPECT_GE(limits.allowed_cpus(), 1U);
  EXPECT_LE(limits.allowed_cpus(), limits.affinity_cpus);
}

TEST(CpuQuota, WholeCpusRoundsUpAndNeverBelowOne) {
  EXPECT_EQ((cpu_quota{"", 2, 1, 100000}.whole_cpus()), 1U);
  EXPECT_EQ((cpu_quota{"", 2, 100000, 100000}.whole_cpus()), 1U);
  EXPECT_EQ((cpu_quota{"", 2, 100001, 100000}.whole_cpus()), 2U);
  EXPECT_EQ((cpu_quota{"", 1, 150000, 100000}.whole_cpus()), 2U);
  EXPECT_EQ((cpu_quota{"", 1, 1'000'000'000'000, 1}.whole_cpus()), max_cpus);
}

}  // namespace
}  // namespace lanes
