// Measurement helpers of the `lanes` command's experiments (demo, sweep),
// which the benchmark lab in bench/ uses for every scenario too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace lanes::tool {

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

}  // namespace lanes::tool
