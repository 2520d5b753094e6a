#include "budget/cgroup_probe.hpp"

#include <algorithm>
#include <optional>

#include "budget/mountinfo.hpp"
#include "budget/parse_number.hpp"

namespace lanes::detail {

namespace {

constexpr std::int64_t v2_default_period_us = 100'000;  // cgroup v2's documented default

bool has(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// "/a" is a path prefix of "/a" and "/a/b", not of "/ab"; "/" is of everything.
bool is_path_prefix(std::string_view prefix, std::string_view path) {
  if (prefix == "/" || prefix.empty()) return true;
  return path.substr(0, prefix.size()) == prefix && (path.size() == prefix.size() || path[prefix.size()] == '/');
}

std::string join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out.push_back('/');
  while (!name.empty() && name.front() == '/') name.remove_prefix(1);
  out.append(name);
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string parent_of(std::string_view dir) {
  const auto slash = dir.rfind('/');
  if (slash == 0 || slash == std::string_view::npos) return "/";
  return std::string(dir.substr(0, slash));
}

// The mount of this hierarchy that shows the deepest ancestor of `path`.
const mount_entry* find_mount(const mountinfo& mounts, const cgroup_membership& member, int version) {
  const mount_entry* best = nullptr;
  for (const auto& mount : mounts.mounts) {
    const bool same_hierarchy =
        version == 2 ? mount.fs_type == "cgroup2" : mount.fs_type == "cgroup" && has(mount.super_options, "cpu");
    if (!same_hierarchy || !is_path_prefix(mount.root, member.path)) continue;
    if (best == nullptr || mount.root.size() > best->root.size()) best = &mount;
  }
  return best;
}

class quota_reader {
 public:
  quota_reader(const system_files& files, cpu_limits& limits) : files_(files), limits_(limits) {}

  void v1(const std::string& dir, bool is_leaf) {
    const auto quota_file = join(dir, "cpu.cfs_quota_us");
    const auto quota_text = files_.read(quota_file);
    if (!quota_text) {
      if (is_leaf) problem(quota_file, "not found: cgroup v1 CPU bandwidth limits not checked here");
      return;
    }
    const auto quota = parse_decimal<std::int64_t>(trim(*quota_text));
    if (!quota || *quota == 0 || *quota < -1)
      return problem(quota_file, "cannot parse '" + std::string(trim(*quota_text)) + "'");
    if (*quota == -1) return;  // no limit at this level
    const auto period_file = join(dir, "cpu.cfs_period_us");
    const auto period_text = files_.read(period_file);
    if (!period_text) return problem(period_file, "not found next to a quota; quota ignored");
    const auto period = parse_decimal<std::int64_t>(trim(*period_text));
    if (!period || *period <= 0) return problem(period_file, "cannot parse '" + std::string(trim(*period_text)) + "'");
    limits_.quotas.push_back({dir, 1, *quota, *period});
  }

  void v2(const std::string& dir) {
    const auto max_file = join(dir, "cpu.max");
    const auto text = files_.read(max_file);
    if (!text) return;  // the cpu controller is not enabled at this level: no limit here
    const auto fields = split_list(trim(*text), ' ');
    const auto garbage = [&] { problem(max_file, "cannot parse '" + std::string(trim(*text)) + "'"); };
    if (fields.empty() || fields.size() > 2) return garbage();
    std::int64_t period = v2_default_period_us;
    if (fields.size() == 2) {
      const auto parsed = parse_decimal<std::int64_t>(fields[1]);
      if (!parsed || *parsed <= 0) return garbage();
      period = *parsed;
    }
    if (fields[0] == "max") return;
    const auto quota = parse_decimal<std::int64_t>(fields[0]);
    if (!quota || *quota <= 0) return garbage();
    limits_.quotas.push_back({dir, 2, *quota, period});
  }

  void throttling(const std::string& dir, int version) {
    const auto stat_file = join(dir, "cpu.stat");
    for (const auto& seen : limits_.throttling) {
      if (seen.stat_file == stat_file) return;
    }
    const auto text = files_.read(stat_file);
    if (!text) return;
    cpu_throttling stats{stat_file, version, 0, 0, 0};
    bool found_throttled = false;
    bool found_time = false;
    for (const auto& line : split_list(*text, '\n')) {
      const auto fields = split_list(line, ' ');
      if (fields.size() != 2) continue;
      const auto& key = fields[0];
      const bool wanted =
          key == "nr_periods" || key == "nr_throttled" || key == "throttled_usec" || key == "throttled_time";
      if (!wanted) continue;
      const auto value = parse_decimal<std::uint64_t>(fields[1]);
      if (!value) return problem(stat_file, "cannot parse '" + line + "'");
      if (key == "nr_periods") stats.nr_periods = *value;
      if (key == "nr_throttled") {
        stats.nr_throttled = *value;
        found_throttled = true;
      }
      if (key == "throttled_usec") {
        stats.throttled_usec = *value;
        found_time = true;
      }
      if (key == "throttled_time") {  // v1 counts nanoseconds
        stats.throttled_usec = *value / 1000;
        found_time = true;
      }
    }
    // A v2 cpu.stat without the cpu controller has only usage counters.
    if (found_throttled && found_time) limits_.throttling.push_back(std::move(stats));
  }

  void problem(const std::string& file, const std::string& what) { limits_.problems.push_back(file + ": " + what); }

 private:
  const system_files& files_;
  cpu_limits& limits_;
};

}  // namespace

std::vector<cgroup_membership> parse_proc_cgroup(std::string_view text, int& malformed_lines) {
  std::vector<cgroup_membership> members;
  for (const auto& line : split_list(text, '\n')) {
    // hierarchy-ID:controller-list:cgroup-path (the path may itself hold ':')
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    const auto id =
        first == std::string::npos ? std::nullopt : parse_decimal<int>(std::string_view(line).substr(0, first));
    if (second == std::string::npos || !id || *id < 0 || line.size() == second + 1 || line[second + 1] != '/') {
      ++malformed_lines;
      continue;
    }
    members.push_back(
        {*id, split_list(std::string_view(line).substr(first + 1, second - first - 1), ','), line.substr(second + 1)});
  }
  return members;
}

void probe_cgroups(const system_files& files, cpu_limits& limits) {
  quota_reader reader(files, limits);
  const auto self = files.read("/proc/self/cgroup");
  if (!self) return reader.problem("/proc/self/cgroup", "cannot be read: no cgroup limits checked");
  const auto mount_text = files.read("/proc/self/mountinfo");
  if (!mount_text) return reader.problem("/proc/self/mountinfo", "cannot be read: no cgroup limits checked");

  int malformed = 0;
  const auto members = parse_proc_cgroup(*self, malformed);
  if (malformed > 0) reader.problem("/proc/self/cgroup", std::to_string(malformed) + " malformed line(s) skipped");
  const auto mounts = parse_mountinfo(*mount_text);
  if (mounts.malformed_lines > 0) {
    reader.problem("/proc/self/mountinfo", std::to_string(mounts.malformed_lines) + " malformed line(s) skipped");
  }

  for (const auto& member : members) {
    const int version = member.hierarchy_id == 0 && member.controllers.empty() ? 2 : 1;
    if (version == 1 && !has(member.controllers, "cpu")) continue;
    const mount_entry* mount = find_mount(mounts, member, version);
    if (mount == nullptr) {
      if (version == 1)
        reader.problem("/proc/self/mountinfo",
                       "the cgroup v1 cpu controller is not mounted where this process can see it");
      continue;
    }
    // The process's cgroup, as a directory under the mount point.
    const std::string relative = mount->root == "/" ? member.path : member.path.substr(mount->root.size());
    const std::string leaf = join(mount->mount_point, relative);
    const std::string top = join(mount->mount_point, "");
    const auto quotas_before = limits.quotas.size();
    // Walk from the leaf up to the mount point: every ancestor's quota binds too.
    for (std::string dir = leaf;; dir = parent_of(dir)) {
      if (version == 1) {
        reader.v1(dir, dir == leaf);
      } else {
        reader.v2(dir);
      }
      if (dir == top || !is_path_prefix(top, dir) || dir == "/") break;
    }
    reader.throttling(leaf, version);
    for (auto i = quotas_before; i < limits.quotas.size(); ++i) {
      reader.throttling(limits.quotas[i].cgroup_dir, version);
    }
  }
}

}  // namespace lanes::detail
