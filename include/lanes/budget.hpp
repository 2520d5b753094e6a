// The CPU budget: how many CPUs this process may really use, and how the
// lanes split them. Every lane sizes itself from one `budget`.
//
//   cpus            = min(affinity mask, ceil(tightest cgroup quota), LANES_CPUS)
//   compute_threads = cpus
//   io_threads      = max(1, cpus / 2)     io workers mostly park: mild oversubscription
//   blocking_max    = 512                  blocking threads mostly sleep in a syscall
//
// Precedence for each number: a builder call, then the environment variable,
// then the rule above. An explicit number may only lower what the machine
// allows (cpus) or what the budget allows (lane threads) unless
// oversubscription is asked for: `allow_oversubscribe()` or
// LANES_OVERSUBSCRIBE=1. Every result records which input decided it and why.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <lanes/config_error.hpp>

namespace lanes {

// A CPU bandwidth limit found in one cgroup directory.
struct cpu_quota {
  std::string cgroup_dir;  // as the process sees it (without the probe root)
  int cgroup_version = 0;  // 1 (cpu.cfs_quota_us) or 2 (cpu.max)
  std::int64_t quota_us = 0;
  std::int64_t period_us = 0;

  double cpus() const noexcept { return static_cast<double>(quota_us) / static_cast<double>(period_us); }
  // The whole CPUs this quota grants: rounded up, never below 1.
  unsigned whole_cpus() const noexcept;
};

// Throttling counters from one cgroup's cpu.stat.
struct cpu_throttling {
  std::string stat_file;  // as the process sees it
  int cgroup_version = 0;
  std::uint64_t nr_periods = 0;
  std::uint64_t nr_throttled = 0;
  std::uint64_t throttled_usec = 0;  // v1's throttled_time (ns) converted
};

// What the machine allows, before any override.
struct cpu_limits {
  unsigned affinity_cpus = 1;              // the mask, less the CPUs react threads own
  std::vector<unsigned> reserved_cores;    // owned by react threads (pinned, spinning): no other lane's
  std::vector<cpu_quota> quotas;           // every limit along every hierarchy's ancestry
  std::vector<cpu_throttling> throttling;  // leaf cgroup and every cgroup with a quota
  std::vector<std::string> problems;       // files that were missing where expected or unreadable

  // The quota granting the fewest CPUs, if any.
  std::optional<cpu_quota> tightest_quota() const;
  // min(affinity, tightest quota rounded up).
  unsigned allowed_cpus() const;
};

// Where probing looks. Every file (/proc/self/cgroup, /proc/self/mountinfo,
// the cgroup files) is read under `root`, so tests run on fixture trees.
struct probe_options {
  std::filesystem::path root = "/";
  // The number of CPUs in the affinity mask; nullopt asks the kernel
  // (sched_getaffinity).
  std::optional<unsigned> affinity_cpus;
};

// Reads the affinity mask and every cgroup CPU limit. Never throws for
// missing or garbage files: those become `problems` and mean "no limit here".
cpu_limits probe_cpu_limits(const probe_options& options = {});

// Which input decided a number.
enum class budget_source {
  affinity,     // the sched_getaffinity mask
  cgroup_v1,    // cpu.cfs_quota_us / cpu.cfs_period_us
  cgroup_v2,    // cpu.max
  environment,  // a LANES_* variable
  builder,      // a budget_builder call
  rule,         // derived from cpus by the default split
};
std::string_view to_string(budget_source source) noexcept;

struct budget_value {
  unsigned value = 0;
  budget_source source = budget_source::rule;
  std::string why;  // one sentence for a person
};

struct budget {
  budget_value cpus;
  budget_value io_threads;
  budget_value compute_threads;
  budget_value blocking_max;
  bool oversubscribe = false;
  cpu_limits limits;
  // The LANES_* variables that were set, as NAME=value, in a fixed order.
  std::vector<std::string> environment;

  // The budget of this process: the machine's limits and the environment.
  static budget detect();
};

// Reads one environment variable; nullopt when it is not set.
using env_lookup = std::function<std::optional<std::string>(std::string_view name)>;
env_lookup process_environment();

// Limits on what any source may ask for: larger values are typos, not plans.
inline constexpr unsigned max_cpus = 4096;
inline constexpr unsigned max_lane_threads = 4096;
inline constexpr unsigned max_blocking_threads = 65536;
inline constexpr unsigned default_blocking_max = 512;  // Tokio's default

class budget_builder {
 public:
  budget_builder();

  // Each setter throws config_error for 0 or a value above its max_* limit.
  budget_builder& cpus(unsigned n);             // default: the machine; env LANES_CPUS
  budget_builder& io_threads(unsigned n);       // default: max(1, cpus/2); env LANES_IO_THREADS
  budget_builder& compute_threads(unsigned n);  // default: cpus; env LANES_COMPUTE_THREADS
  budget_builder& blocking_max(unsigned n);     // default: 512; env LANES_BLOCKING_MAX
  // Lets explicit numbers exceed what the machine allows. Default: off; env LANES_OVERSUBSCRIBE=1.
  budget_builder& allow_oversubscribe(bool allow = true);

  // Where to probe the machine (default: the real one).
  budget_builder& probe(probe_options options);
  // Use these limits instead of probing.
  budget_builder& limits(cpu_limits limits);
  // Where LANES_* variables come from (default: the process environment).
  budget_builder& environment(env_lookup lookup);
  budget_builder& ignore_environment();

  // Throws config_error when an environment variable holds a bad value.
  budget build() const;

 private:
  std::optional<unsigned> cpus_, io_threads_, compute_threads_, blocking_max_;
  std::optional<bool> oversubscribe_;
  probe_options probe_;
  std::optional<cpu_limits> limits_;
  env_lookup environment_;
};

}  // namespace lanes
