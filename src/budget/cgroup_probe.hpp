// Finding the cgroup CPU limits of this process without assuming where
// cgroupfs is mounted: /proc/self/cgroup says which cgroup the process is in
// per hierarchy, /proc/self/mountinfo says where each hierarchy is mounted
// and which of its directories the mount shows. Works on v1, v2 and hybrid
// machines (both at once: a v1 cpu controller and a v2 unified tree).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <lanes/budget.hpp>

#include "budget/system_files.hpp"

namespace lanes::detail {

struct cgroup_membership {
  int hierarchy_id = 0;                  // 0 is the v2 unified hierarchy
  std::vector<std::string> controllers;  // empty for v2
  std::string path;                      // relative to the hierarchy's root
};

// Parses /proc/self/cgroup; malformed lines are counted, not fatal.
std::vector<cgroup_membership> parse_proc_cgroup(std::string_view text, int& malformed_lines);

// Adds every CPU quota and throttling counter it finds to `limits`, and a
// line to `limits.problems` for each file it could not use.
void probe_cgroups(const system_files& files, cpu_limits& limits);

}  // namespace lanes::detail
