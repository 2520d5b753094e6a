// The budget against the real kernel: creates cgroups with 0.5- and 1.5-CPU
// quotas, runs a child in each, and checks what the child detects; and runs a
// child pinned to one CPU. Skips, saying why, where the kernel does not let
// this process create cgroups (not root, no cpu controller, read-only mount).
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <lanes/budget.hpp>

#include "budget/mountinfo.hpp"
#include "budget/system_files.hpp"

namespace lanes {
namespace {

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// A cgroup this test made, removed when the test ends.
class scratch_cgroup {
 public:
  // Empty `dir` (and a reason in `why_not`) when the kernel does not allow it.
  scratch_cgroup(std::int64_t quota_us, std::int64_t period_us) {
    const detail::system_files files("/");
    const auto mount_text = files.read("/proc/self/mountinfo");
    if (!mount_text) {
      why_not = "/proc/self/mountinfo cannot be read";
      return;
    }
    const auto mounts = detail::parse_mountinfo(*mount_text);
    const std::string name = "/lanes-kernel-test-" + std::to_string(::getpid()) + "-" + std::to_string(quota_us);
    for (const auto& m : mounts.mounts) {
      const bool v1_cpu = m.fs_type == "cgroup" &&
                          std::find(m.super_options.begin(), m.super_options.end(), "cpu") != m.super_options.end();
      if (!v1_cpu) continue;
      if (try_make(m.mount_point + name) && write_file(dir + "/cpu.cfs_period_us", std::to_string(period_us)) &&
          write_file(dir + "/cpu.cfs_quota_us", std::to_string(quota_us))) {
        version = 1;
        return;
      }
      remove();
    }
    for (const auto& m : mounts.mounts) {
      if (m.fs_type != "cgroup2") continue;
      const auto controllers = files.read(m.mount_point + "/cgroup.controllers");
      if (!controllers || controllers->find("cpu") == std::string::npos) continue;
      write_file(m.mount_point + "/cgroup.subtree_control", "+cpu");  // may already be on
      if (try_make(m.mount_point + name) &&
          write_file(dir + "/cpu.max", std::to_string(quota_us) + " " + std::to_string(period_us))) {
        version = 2;
        return;
      }
      remove();
    }
    if (why_not.empty()) why_not = "no cgroup v1 cpu controller or v2 tree with the cpu controller is mounted";
  }
  ~scratch_cgroup() { remove(); }
  scratch_cgroup(const scratch_cgroup&) = delete;
  scratch_cgroup& operator=(const scratch_cgroup&) = delete;

  std::string dir;
  int version = 0;
  std::string why_not;

 private:
  bool try_make(const std::string& path) {
    if (::mkdir(path.c_str(), 0755) != 0) {
      why_not = "mkdir " + path + ": " + std::strerror(errno);
      return false;
    }
    dir = path;
    return true;
  }
  void remove() {
    if (dir.empty()) return;
    // The child has exited, but the kernel may take a moment to empty the cgroup.
    for (int attempt = 0; attempt < 100 && ::rmdir(dir.c_str()) != 0 && errno == EBUSY; ++attempt) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    dir.clear();
  }
};

// What a child process detected.
struct child_view {
  unsigned cpus = 0;
  std::string source;
  double quota_at_dir = -1;  // the quota found in the scratch cgroup, -1 if none
  bool ok = false;
};

// Runs `setup` in a forked child, then detects the budget there; `dir` is the
// cgroup whose quota the child reports.
template <class Setup>
child_view in_child(Setup setup, const std::string& dir = {}) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string answer = "setup-failed";
    if (setup()) {
      const auto b = budget_builder().ignore_environment().build();
      double quota = -1;
      for (const auto& q : b.limits.quotas) {
        if (q.cgroup_dir == dir) quota = q.cpus();
      }
      std::ostringstream out;
      out << b.cpus.value << ' ' << to_string(b.cpus.source) << ' ' << quota;
      answer = out.str();
    }
    [[maybe_unused]] const auto written = ::write(fds[1], answer.data(), answer.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string answer;
  char chunk[512];
  for (ssize_t n; (n = ::read(fds[0], chunk, sizeof chunk)) > 0;) answer.append(chunk, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  child_view view;
  std::istringstream in(answer);
  view.ok = static_cast<bool>(in >> view.cpus >> view.source >> view.quota_at_dir);
  return view;
}

child_view in_cgroup(const scratch_cgroup& cg) {
  return in_child([&] { return write_file(cg.dir + "/cgroup.procs", std::to_string(::getpid())); }, cg.dir);
}

// The child's budget is the parent's limits with the new quota added.
void expect_quota_binds(const scratch_cgroup& cg, double quota_cpus, unsigned quota_whole) {
  const auto parent = probe_cpu_limits();
  const auto child = in_cgroup(cg);
  ASSERT_TRUE(child.ok) << "the child could not join " << cg.dir;
  EXPECT_DOUBLE_EQ(child.quota_at_dir, quota_cpus);
  EXPECT_EQ(child.cpus, std::min(parent.allowed_cpus(), quota_whole));
  if (parent.quotas.empty() && parent.affinity_cpus > quota_whole) {
    EXPECT_EQ(child.source, cg.version == 1 ? "cgroup_v1" : "cgroup_v2");
  }
}

TEST(KernelCgroup, HalfACpuQuotaGivesOneCpu) {
  const scratch_cgroup cg(50'000, 100'000);
  if (cg.dir.empty()) GTEST_SKIP() << "cannot create a cgroup here: " << cg.why_not;
  expect_quota_binds(cg, 0.5, 1);
}

TEST(KernelCgroup, OneAndAHalfCpuQuotaGivesTwoCpus) {
  const scratch_cgroup cg(150'000, 100'000);
  if (cg.dir.empty()) GTEST_SKIP() << "cannot create a cgroup here: " << cg.why_not;
  expect_quota_binds(cg, 1.5, 2);
}

TEST(KernelCgroup, PinnedToOneCpuGivesOneCpu) {
  cpu_set_t current;
  CPU_ZERO(&current);
  ASSERT_EQ(::sched_getaffinity(0, sizeof current, &current), 0);
  int first = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE && first < 0; ++cpu) {
    if (CPU_ISSET(cpu, &current)) first = cpu;
  }
  ASSERT_GE(first, 0);
  const auto answer = in_child([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    return ::sched_setaffinity(0, sizeof one, &one) == 0;
  });
  ASSERT_TRUE(answer.ok);
  EXPECT_EQ(answer.cpus, 1U);
  EXPECT_EQ(answer.source, "affinity");
}

}  // namespace
}  // namespace lanes
