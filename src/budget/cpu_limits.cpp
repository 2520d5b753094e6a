// What the machine allows: the affinity mask and the cgroup quotas.
#include <algorithm>

#include <lanes/budget.hpp>

#include "budget/affinity.hpp"
#include "budget/cgroup_probe.hpp"
#include "budget/core_reservations.hpp"
#include "budget/system_files.hpp"

namespace lanes {

unsigned cpu_quota::whole_cpus() const noexcept {
  if (quota_us <= 0 || period_us <= 0) return 1;
  // Round up: 1.5 CPUs of quota can keep 2 threads busy 75% of the time,
  // and rounding down would leave quota unused (oneTBB rounds up too).
  const auto whole = (quota_us + period_us - 1) / period_us;
  return static_cast<unsigned>(std::clamp<std::int64_t>(whole, 1, max_cpus));
}

std::optional<cpu_quota> cpu_limits::tightest_quota() const {
  const auto tightest = std::min_element(quotas.begin(), quotas.end(),
                                         [](const cpu_quota& a, const cpu_quota& b) { return a.cpus() < b.cpus(); });
  if (tightest == quotas.end()) return std::nullopt;
  return *tightest;
}

unsigned cpu_limits::allowed_cpus() const {
  const auto quota = tightest_quota();
  const unsigned affinity = std::max(affinity_cpus, 1U);
  return quota ? std::min(affinity, quota->whole_cpus()) : affinity;
}

cpu_limits probe_cpu_limits(const probe_options& options) {
  cpu_limits limits;
  if (options.affinity_cpus) {
    limits.affinity_cpus = std::max(*options.affinity_cpus, 1U);
  } else {
    limits.affinity_cpus = detail::affinity_cpu_count();
    limits.reserved_cores = detail::reserved_cores();
  }
  detail::probe_cgroups(detail::system_files(options.root), limits);
  return limits;
}

}  // namespace lanes
