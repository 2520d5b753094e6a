// The scenario programs of the benchmark lab, run as `lanes-bench sN` (or
// `lanes bench sN` where the lab is installed next to the `lanes` command;
// docs/benchmarks.md describes each). Each runs lanes and its peer with the
// same parameters in the same invocation, prints a table for a person and, last, one JSON
// line {"scenario": "S3", ...} whose keys name their units.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "measure.hpp"

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
int run_s12(const options& opts);
int run_timer_latency(const options& opts);
int run_timeouts(const options& opts);
int run_sync(const options& opts);
int run_compose(const options& opts);

// The measurement helpers the lab shares with the `lanes` command.
using tool::lag_stats;
using tool::median;
using tool::peak_rss_bytes;
using tool::rss_bytes;
using tool::run_isolated;
using tool::summarize_lags;

}  // namespace lanes::bench
