// Parsing /proc/self/mountinfo and /proc/self/cgroup lines.
#include "budget/mountinfo.hpp"

#include <gtest/gtest.h>

#include "budget/cgroup_probe.hpp"

namespace lanes::detail {
namespace {

TEST(Mountinfo, ParsesOptionalFieldsAndSuperOptions) {
  const auto parsed = parse_mountinfo(
      "33 25 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:12 master:3 - cgroup cgroup rw,cpu,cpuacct\n");
  ASSERT_EQ(parsed.mounts.size(), 1U);
  EXPECT_EQ(parsed.malformed_lines, 0);
  const auto& m = parsed.mounts[0];
  EXPECT_EQ(m.root, "/");
  EXPECT_EQ(m.mount_point, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(m.fs_type, "cgroup");
  EXPECT_EQ(m.super_options, (std::vector<std::string>{"rw", "cpu", "cpuacct"}));
}

TEST(Mountinfo, NoOptionalFields) {
  const auto parsed = parse_mountinfo("41 31 0:38 /sub /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw");
  ASSERT_EQ(parsed.mounts.size(), 1U);
  EXPECT_EQ(parsed.mounts[0].root, "/sub");
  EXPECT_EQ(parsed.mounts[0].fs_type, "cgroup2");
}

TEST(Mountinfo, UnescapesOctal) {
  const auto parsed = parse_mountinfo(R"(1 2 0:1 /a\134b /mnt/with\040space\011tab rw - tmpfs x rw)");
  ASSERT_EQ(parsed.mounts.size(), 1U);
  EXPECT_EQ(parsed.mounts[0].root, "/a\\b");
  EXPECT_EQ(parsed.mounts[0].mount_point, "/mnt/with space\ttab");
}

TEST(Mountinfo, TrailingBackslashIsKeptNotOverrun) {
  const auto parsed = parse_mountinfo("1 2 0:1 / /m\\04 rw - tmpfs x rw");
  ASSERT_EQ(parsed.mounts.size(), 1U);
  EXPECT_EQ(parsed.mounts[0].mount_point, "/m\\04");
}

TEST(Mountinfo, CountsMalformedLines) {
  const auto parsed = parse_mountinfo("garbage\n1 2 3\n1 2 0:1 / /m rw - tmpfs\n\n1 2 0:1 / /ok rw - tmpfs x rw\n");
  EXPECT_EQ(parsed.malformed_lines, 3);
  ASSERT_EQ(parsed.mounts.size(), 1U);
  EXPECT_EQ(parsed.mounts[0].mount_point, "/ok");
}

TEST(ProcCgroup, ParsesV1AndV2Lines) {
  int malformed = 0;
  const auto members = parse_proc_cgroup("4:cpu,cpuacct:/docker/abc\n0::/user.slice/a:b\n", malformed);
  EXPECT_EQ(malformed, 0);
  ASSERT_EQ(members.size(), 2U);
  EXPECT_EQ(members[0].hierarchy_id, 4);
  EXPECT_EQ(members[0].controllers, (std::vector<std::string>{"cpu", "cpuacct"}));
  EXPECT_EQ(members[0].path, "/docker/abc");
  EXPECT_EQ(members[1].hierarchy_id, 0);
  EXPECT_TRUE(members[1].controllers.empty());
  EXPECT_EQ(members[1].path, "/user.slice/a:b");  // ':' inside the path is part of it
}

TEST(ProcCgroup, CountsMalformedLines) {
  int malformed = 0;
  const auto members = parse_proc_cgroup("nonsense\n:::\nx:cpu:/a\n-1:cpu:/a\n3:cpu:relative\n2:cpu:/ok\n", malformed);
  EXPECT_EQ(malformed, 5);
  ASSERT_EQ(members.size(), 1U);
  EXPECT_EQ(members[0].path, "/ok");
}

TEST(SplitList, DropsEmptyParts) {
  EXPECT_EQ(split_list(",a,,b,", ','), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(split_list("", ',').empty());
}

}  // namespace
}  // namespace lanes::detail
