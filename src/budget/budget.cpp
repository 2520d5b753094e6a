// The split of one CPU budget between the lanes, and why each number is what it is.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include <lanes/budget.hpp>

#include "budget/env_values.hpp"

namespace lanes {

namespace {

std::string format_cpus(double cpus) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", cpus);
  return text;
}

// What the machine alone allows, and which limit is the binding one.
budget_value machine_cpus(const cpu_limits& limits) {
  const unsigned affinity = std::max(limits.affinity_cpus, 1U);
  const auto quota = limits.tightest_quota();
  if (!quota || quota->whole_cpus() >= affinity) {
    std::string why = "the affinity mask allows " + std::to_string(affinity) + " CPU(s)";
    if (!limits.reserved_cores.empty())
      why += " besides the " + std::to_string(limits.reserved_cores.size()) + " react threads own";
    if (quota) why += " (the cgroup quota allows " + format_cpus(quota->cpus()) + ")";
    return {affinity, budget_source::affinity, why};
  }
  const bool v1 = quota->cgroup_version == 1;
  std::string why = std::string(v1 ? "cgroup v1 quota " : "cgroup v2 cpu.max ") + std::to_string(quota->quota_us) +
                    "/" + std::to_string(quota->period_us) + " us in " + quota->cgroup_dir + " = " +
                    format_cpus(quota->cpus()) + " CPUs, rounded up to " + std::to_string(quota->whole_cpus()) +
                    " (affinity allows " + std::to_string(affinity) + ")";
  return {quota->whole_cpus(), v1 ? budget_source::cgroup_v1 : budget_source::cgroup_v2, why};
}

struct request {
  std::optional<unsigned> from_builder;
  std::string_view setter;
  std::optional<unsigned> from_env;
  std::string_view variable;
};

// An explicit number wins over the default, but not over the ceiling unless
// oversubscription was asked for.
budget_value decide(const request& asked, budget_value fallback, const budget_value& ceiling,
                    std::string_view ceiling_name, bool oversubscribe) {
  std::string label;
  budget_value chosen;
  if (asked.from_builder) {
    label = "budget_builder::" + std::string(asked.setter) + "(" + std::to_string(*asked.from_builder) + ")";
    chosen = {*asked.from_builder, budget_source::builder, "set by " + label};
  } else if (asked.from_env) {
    label = std::string(asked.variable) + "=" + std::to_string(*asked.from_env);
    chosen = {*asked.from_env, budget_source::environment, "set by " + label};
  } else {
    return fallback;
  }
  if (chosen.value <= ceiling.value) return chosen;
  if (oversubscribe) {
    chosen.why += ", above the " + std::string(ceiling_name) + " (" + std::to_string(ceiling.value) +
                  ") because oversubscription is allowed";
    return chosen;
  }
  return {ceiling.value, ceiling.source,
          label + " asks for more than the " + std::string(ceiling_name) + " (" + std::to_string(ceiling.value) +
              "), so it is capped there; set LANES_OVERSUBSCRIBE=1 or call allow_oversubscribe() to go above"};
}

}  // namespace

std::string_view to_string(budget_source source) noexcept {
  switch (source) {
    case budget_source::affinity:
      return "affinity";
    case budget_source::cgroup_v1:
      return "cgroup_v1";
    case budget_source::cgroup_v2:
      return "cgroup_v2";
    case budget_source::environment:
      return "environment";
    case budget_source::builder:
      return "builder";
    case budget_source::rule:
      return "rule";
  }
  return "unknown";
}

env_lookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    // getenv is safe here: lanes never calls setenv, and callers that do must
    // not race it with anything else that reads the environment.
    const char* value = std::getenv(std::string(name).c_str());  // NOLINT(concurrency-mt-unsafe): see above
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

budget budget::detect() { return budget_builder().build(); }

budget_builder::budget_builder() : environment_(process_environment()) {}

budget_builder& budget_builder::cpus(unsigned n) {
  cpus_ = detail::checked_builder_count("cpus", n, max_cpus);
  return *this;
}
budget_builder& budget_builder::io_threads(unsigned n) {
  io_threads_ = detail::checked_builder_count("io_threads", n, max_lane_threads);
  return *this;
}
budget_builder& budget_builder::compute_threads(unsigned n) {
  compute_threads_ = detail::checked_builder_count("compute_threads", n, max_lane_threads);
  return *this;
}
budget_builder& budget_builder::blocking_max(unsigned n) {
  blocking_max_ = detail::checked_builder_count("blocking_max", n, max_blocking_threads);
  return *this;
}
budget_builder& budget_builder::allow_oversubscribe(bool allow) {
  oversubscribe_ = allow;
  return *this;
}
budget_builder& budget_builder::probe(probe_options options) {
  probe_ = std::move(options);
  return *this;
}
budget_builder& budget_builder::limits(cpu_limits limits) {
  limits_ = std::move(limits);
  return *this;
}
budget_builder& budget_builder::environment(env_lookup lookup) {
  environment_ = std::move(lookup);
  return *this;
}
budget_builder& budget_builder::ignore_environment() {
  environment_ = nullptr;
  return *this;
}

budget budget_builder::build() const {
  budget result;
  const auto read = [&](std::string_view name) -> std::optional<std::string> {
    auto value = environment_ ? environment_(name) : std::nullopt;
    if (value) result.environment.push_back(std::string(name) + "=" + *value);
    return value;
  };
  // Every variable is validated, even one a builder call overrides: a typo
  // in the environment is reported rather than silently ignored.
  const auto env_cpus = detail::count_from_env("LANES_CPUS", read("LANES_CPUS"), max_cpus);
  const auto env_io = detail::count_from_env("LANES_IO_THREADS", read("LANES_IO_THREADS"), max_lane_threads);
  const auto env_compute =
      detail::count_from_env("LANES_COMPUTE_THREADS", read("LANES_COMPUTE_THREADS"), max_lane_threads);
  const auto env_blocking =
      detail::count_from_env("LANES_BLOCKING_MAX", read("LANES_BLOCKING_MAX"), max_blocking_threads);
  const auto env_oversubscribe = detail::flag_from_env("LANES_OVERSUBSCRIBE", read("LANES_OVERSUBSCRIBE"));

  result.limits = limits_ ? *limits_ : probe_cpu_limits(probe_);
  result.oversubscribe = oversubscribe_.value_or(env_oversubscribe.value_or(false));

  const budget_value machine = machine_cpus(result.limits);
  result.cpus =
      decide({cpus_, "cpus", env_cpus, "LANES_CPUS"}, machine, machine, "machine's limit", result.oversubscribe);

  const unsigned cpus = result.cpus.value;
  const std::string of_cpus = " with cpus = " + std::to_string(cpus);
  result.compute_threads =
      decide({compute_threads_, "compute_threads", env_compute, "LANES_COMPUTE_THREADS"},
             {cpus, budget_source::rule, "compute = cpus" + of_cpus}, result.cpus, "CPU budget", result.oversubscribe);
  result.io_threads = decide({io_threads_, "io_threads", env_io, "LANES_IO_THREADS"},
                             {std::max(1U, cpus / 2), budget_source::rule, "io = max(1, cpus / 2)" + of_cpus},
                             result.cpus, "CPU budget", result.oversubscribe);
  const budget_value no_ceiling{UINT_MAX, budget_source::rule, ""};
  result.blocking_max = decide(
      {blocking_max_, "blocking_max", env_blocking, "LANES_BLOCKING_MAX"},
      {default_blocking_max, budget_source::rule, "the default cap: blocking threads mostly sleep in a system call"},
      no_ceiling, "", result.oversubscribe);
  return result;
}

}  // namespace lanes
