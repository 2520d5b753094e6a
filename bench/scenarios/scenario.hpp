// The scenario programs of SCENARIOS.md, shared by `lanes bench sN` and the
// bench/ executables. Each runs lanes and its peer with the same parameters
// in the same invocation, prints a table for a person and, last, one JSON
// line {"scenario": "S3", ...} whose keys name their units.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace lanes::bench {

struct options {
  bool quick = false;  // a short run that CI can afford
  bool json = false;   // only the JSON line
};

struct scenario {
  const char* id;     // "s3"
  const char* title;  // one line
  int (*run)(const options&);
};

std::span<const scenario> all_scenarios();

int run_s1(const options& opts);
int run_s3(const options& opts);
int run_s4(const options& opts);
int run_s5(const options& opts);
int run_s6(const options& opts);
int run_s7(const options& opts);
int run_s9(const options& opts);
int run_s8(const options& opts);
int run_s10(const options& opts);
int run_timer_latency(const options& opts);
int run_timeouts(const options& opts);
int run_sync(const options& opts);
int run_compose(const options& opts);

// Runs `work` in a forked child so that memory and threads of one side
// cannot colour the other's; returns the numbers it produced.
std::vector<double> run_isolated(const std::function<std::vector<double>()>& work);

// Resident set size now, and its peak so far, in bytes (from /proc/self/status).
std::uint64_t rss_bytes();
std::uint64_t peak_rss_bytes();

// The middle value (for an even count, the mean of the two middle ones);
// 0 for none.
double median(std::vector<double> values);

// Timer lateness samples (us) summed up; all zero when there are none.
struct lag_stats {
  double worst_us = 0;
  double p99_us = 0;
  std::size_t ticks = 0;
};
lag_stats summarize_lags(std::vector<double> lags_us);

}  // namespace lanes::bench
