#include "budget_command.hpp"

#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>

#include <lanes/config_error.hpp>
#include <lanes/io/io_backend.hpp>

#include "json_writer.hpp"

namespace lanes::tool {

namespace {

// The counters of the cgroup that binds (the tightest quota's), else the leaf's.
const cpu_throttling* primary_throttling(const budget& b) {
  if (b.limits.throttling.empty()) return nullptr;
  if (const auto quota = b.limits.tightest_quota()) {
    for (const auto& t : b.limits.throttling) {
      if (t.stat_file == quota->cgroup_dir + "/cpu.stat") return &t;
    }
  }
  return &b.limits.throttling.front();
}

void row(std::ostream& out, std::string_view label, const std::string& text) {
  out << "  " << std::left << std::setw(18) << label << text << '\n';
}

void value_row(std::ostream& out, std::string_view label, const budget_value& v) {
  row(out, label, std::to_string(v.value) + "  (" + std::string(to_string(v.source)) + ": " + v.why + ")");
}

std::string throttling_text(const cpu_throttling& t) {
  return t.stat_file + ": throttled in " + std::to_string(t.nr_throttled) + " of " + std::to_string(t.nr_periods) +
         " periods, " + std::to_string(t.throttled_usec) + " us in all";
}

void throttling_json(json_writer& json, std::string_view key, const cpu_throttling& t) {
  json.begin_object(key)
      .field("stat_file", t.stat_file)
      .field("cgroup_version", t.cgroup_version)
      .field("nr_periods", t.nr_periods)
      .field("nr_throttled", t.nr_throttled)
      .field("throttled_usec", t.throttled_usec)
      .end_object();
}

// The io backend a runtime of this process gets (lanes/io/io_backend.hpp),
// or why it would not build.
struct backend_line {
  std::string backend;  // "epoll", "uring", or "none"
  std::string why;
};
backend_line io_backend_line() {
  try {
    const auto choice = choose_io_backend();
    return {std::string(to_string(choice.backend)), choice.why};
  } catch (const config_error& e) {
    return {"none", e.what()};
  }
}

}  // namespace

void print_budget_text(const budget& b, std::ostream& out) {
  out << "What this process may use\n";
  row(out, "affinity mask", std::to_string(b.limits.affinity_cpus) + " CPU(s)");
  if (b.limits.quotas.empty()) row(out, "cgroup quota", "none found");
  for (const auto& q : b.limits.quotas) {
    std::ostringstream cpus;
    cpus << std::fixed << std::setprecision(2) << q.cpus();
    row(out, "cgroup quota",
        "v" + std::to_string(q.cgroup_version) + " " + q.cgroup_dir + ": " + std::to_string(q.quota_us) + "/" +
            std::to_string(q.period_us) + " us = " + cpus.str() + " CPUs");
  }
  if (b.environment.empty()) row(out, "environment", "no LANES_* variable set");
  for (const auto& e : b.environment) row(out, "environment", e);
  if (b.limits.throttling.empty()) row(out, "throttling", "no throttling counters found");
  for (const auto& t : b.limits.throttling) row(out, "throttling", throttling_text(t));
  for (const auto& p : b.limits.problems) row(out, "problem", p);
  out << "\nThe budget and the lanes\n";
  value_row(out, "cpus", b.cpus);
  value_row(out, "compute threads", b.compute_threads);
  value_row(out, "io threads", b.io_threads);
  value_row(out, "blocking max", b.blocking_max);
  row(out, "oversubscribe", b.oversubscribe ? "allowed" : "no (LANES_OVERSUBSCRIBE=1 allows it)");
  const auto io = io_backend_line();
  row(out, "io backend", io.backend + " (" + io.why + ")");
}

void print_budget_json(const budget& b, std::ostream& out) {
  json_writer json;
  json.begin_object()
      .field("cpus", b.cpus.value)
      .field("io_threads", b.io_threads.value)
      .field("compute_threads", b.compute_threads.value)
      .field("blocking_max", b.blocking_max.value)
      .field("source", to_string(b.cpus.source))
      .field("affinity_cpus", b.limits.affinity_cpus);
  if (const auto quota = b.limits.tightest_quota()) {
    json.field("cgroup_quota_cpus", quota->cpus());
  } else {
    json.null_field("cgroup_quota_cpus");
  }
  if (const auto* t = primary_throttling(b)) {
    throttling_json(json, "throttled", *t);
  } else {
    json.null_field("throttled");
  }
  json.field("oversubscribe", b.oversubscribe);
  const auto io = io_backend_line();
  json.field("io_backend", io.backend);
  json.begin_object("why")
      .field("cpus", b.cpus.why)
      .field("io_threads", b.io_threads.why)
      .field("compute_threads", b.compute_threads.why)
      .field("blocking_max", b.blocking_max.why)
      .field("io_backend", io.why)
      .end_object();
  json.begin_array("cgroup_quotas");
  for (const auto& q : b.limits.quotas) {
    json.begin_object()
        .field("cgroup_dir", q.cgroup_dir)
        .field("cgroup_version", q.cgroup_version)
        .field("quota_us", static_cast<std::uint64_t>(q.quota_us))
        .field("period_us", static_cast<std::uint64_t>(q.period_us))
        .field("cpus", q.cpus())
        .end_object();
  }
  json.end_array();
  json.begin_array("throttling");
  for (const auto& t : b.limits.throttling) throttling_json(json, {}, t);
  json.end_array();
  json.begin_array("environment");
  for (const auto& e : b.environment) json.value(e);
  json.end_array();
  json.begin_array("problems");
  for (const auto& p : b.limits.problems) json.value(p);
  json.end_array();
  json.end_object();
  out << json.str() << '\n';
}

}  // namespace lanes::tool
