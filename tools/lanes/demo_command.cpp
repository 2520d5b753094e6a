// `lanes demo` (see demo_command.hpp).
#include "demo_command.hpp"

#include <sched.h>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <stdexcept>
#include <string>
#include <vector>

#include <lanes/config_error.hpp>
#include <lanes/system.hpp>

#include "json_writer.hpp"
#include "lateness_plot.hpp"
#include "s1_lanes.hpp"

namespace lanes::tool {

namespace {

// Narrows this process's affinity to the first `n` CPUs it may use now.
void restrict_to_cpus(unsigned n) {
  cpu_set_t current;
  CPU_ZERO(&current);
  if (sched_getaffinity(0, sizeof current, &current) != 0) throw std::runtime_error("sched_getaffinity failed");
  const auto available = static_cast<unsigned>(CPU_COUNT(&current));
  if (n == 0 || n > available) {
    throw config_error("--cpus " + std::to_string(n) + ": this process may use " + std::to_string(available) +
                       " CPU(s); give 1.." + std::to_string(available));
  }
  cpu_set_t chosen;
  CPU_ZERO(&chosen);
  unsigned taken = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && taken < n; ++cpu) {
    if (CPU_ISSET(cpu, &current)) {
      CPU_SET(cpu, &chosen);
      ++taken;
    }
  }
  if (sched_setaffinity(0, sizeof chosen, &chosen) != 0) throw std::runtime_error("sched_setaffinity failed");
}

std::string ms(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f ms", us / 1000);
  return buf;
}

}  // namespace

int run_demo(const demo_options& options, std::ostream& out) {
  if (options.cpus != 0) restrict_to_cpus(options.cpus);
  auto sys = system::builder().build();
  const auto& b = sys.budget();
  const auto config = s1_config::for_run(options.quick);
  const bool text = !options.json;
  if (text) {
    out << "lanes demo: " << config.requests << " requests, each Σ f(x) over " << config.batch
        << " u64 on the compute lane; a ticker every " << config.tick.count() << " ms on the io lane\n"
        << "budget: " << b.cpus.value << " CPU(s) (" << b.cpus.why << ")\n"
        << "        io workers " << sys.io().worker_count() << ", compute threads " << sys.compute().threads() << " at "
        << compute::describe(sys.compute().priority()) << " priority, blocking threads up to " << b.blocking_max.value
        << "\n\n";
    out.flush();
  }
  std::vector<s1_result> results;
  for (auto mode : {s1_mode::inline_on_io, s1_mode::offloaded, s1_mode::gate}) {
    results.push_back(run_s1_mode(sys, mode, config));
  }
  const std::uint64_t expected =
      options.quick ? results[0].checksum : s1_total_checksum;  // quick: the modes must agree
  bool all_agree = true;
  for (const auto& r : results) all_agree = all_agree && r.checksum == expected;

  if (text) {
    out << "  " << std::left << std::setw(11) << "mode" << std::right << std::setw(11) << "total" << std::setw(14)
        << "worst lag" << std::setw(12) << "p99 lag" << std::setw(7) << "ticks"
        << "  checksum\n";
    for (const auto& r : results) {
      out << "  " << std::left << std::setw(11) << to_string(r.mode) << std::right << std::setw(11)
          << ms(r.total_ms * 1000) << std::setw(14) << ms(r.worst_lag_us) << std::setw(12) << ms(r.p99_lag_us)
          << std::setw(7) << r.ticks.size() << "  " << r.checksum << (r.checksum == expected ? "" : "  MISMATCH")
          << '\n';
    }
    out << "\n  inline: the requests ran evaluate on the io worker, so the ticker waited behind them.\n"
        << "  offloaded / gate: evaluate ran on the compute lane behind 2 permits; the io worker kept ticking.\n\n"
        << "tick lateness over each mode's run:\n";
    std::vector<lateness_series> series;
    for (const auto& r : results) {
      lateness_series s{to_string(r.mode), {}, {}};
      for (const auto& t : r.ticks) {
        s.at_ms.push_back(t.at_ms);
        s.lag_us.push_back(t.lag_us);
      }
      series.push_back(std::move(s));
    }
    print_sparklines(series, 60, out);
    if (!options.svg_path.empty()) {
      std::ofstream svg(options.svg_path);
      svg << lateness_svg(series, "lanes demo: tick lateness, inline vs offloaded vs gate");
      out << "plot: " << options.svg_path << (svg ? "" : " (could not be written)") << '\n';
    }
    out << '\n';
    out.flush();
  }

  const auto s2 = run_s2(sys, 8);
  if (text) {
    out << "S2, a compute job that throws: " << s2.failed << " request failed with " << s2.failed_type << " (\""
        << s2.failed_message << "\"), " << s2.completed << " completed; a detached job's exception reached the "
        << "pool's handler (" << s2.detached_errors_counted << " counted); the process lives.\n";
  }

  json_writer json;
  json.begin_object().field("scenario", "S1").field("cpus", b.cpus.value);
  json.field("io_workers", sys.io().worker_count())
      .field("compute_threads", static_cast<unsigned>(sys.compute().threads()));
  json.field("compute_priority", compute::describe(sys.compute().priority()));
  json.field("requests", config.requests).field("batch", static_cast<std::uint64_t>(config.batch));
  for (const auto& r : results) {
    const std::string k = std::string(to_string(r.mode)) + "_";
    json.field(k + "total_ms", r.total_ms)
        .field(k + "worst_lag_us", r.worst_lag_us)
        .field(k + "p99_lag_us", r.p99_lag_us)
        .field(k + "checksum", r.checksum);
  }
  json.field("checksums_agree", all_agree)
      .field("offloaded_over_inline_total", results[1].total_ms / results[0].total_ms)
      .field("s2_completed", s2.completed)
      .field("s2_failed", s2.failed)
      .field("s2_failed_type", s2.failed_type)
      .field("s2_detached_errors_counted", s2.detached_errors_counted);
  json.end_object();
  out << json.str() << std::endl;
  return all_agree && s2.failed == 1 && s2.detached_errors_counted == 1 ? 0 : 1;
}

}  // namespace lanes::tool
