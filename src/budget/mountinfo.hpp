// Parsing /proc/self/mountinfo (proc(5)): where each cgroup hierarchy is
// mounted and which part of the hierarchy the mount shows (its root).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lanes::detail {

struct mount_entry {
  std::string root;                        // the directory of the filesystem shown at mount_point
  std::string mount_point;                 // where it is mounted
  std::string fs_type;                     // "cgroup" (v1), "cgroup2", ...
  std::vector<std::string> super_options;  // for cgroup v1: the controllers, e.g. "cpu"
};

// Lines that do not have the documented shape are skipped and counted.
struct mountinfo {
  std::vector<mount_entry> mounts;
  int malformed_lines = 0;
};

mountinfo parse_mountinfo(std::string_view text);

// Splits "a,b,c" into its parts.
std::vector<std::string> split_list(std::string_view text, char separator);

}  // namespace lanes::detail
