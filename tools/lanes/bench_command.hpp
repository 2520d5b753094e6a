// `lanes bench ...`: hands its arguments to the benchmark lab, the
// `lanes-bench` program that bench/ builds as its own CMake project (the
// scenarios and their peers, kept out of the product). The lab is the
// program named by LANES_BENCH, or else `lanes-bench` next to this `lanes`.
#pragma once

#include <string>
#include <vector>

namespace lanes::tool {

// Where the lab is, or a sentence saying where it was looked for.
struct lab_location {
  std::string program;  // empty when not found
  std::string looked_at;
};
lab_location find_bench_lab();

// Replaces this process with the lab, given `args`; returns only when that
// cannot be done, with the exit status to use after saying why on stderr.
int run_bench_lab(const std::vector<std::string>& args);

}  // namespace lanes::tool
