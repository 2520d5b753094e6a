// `lanes bench ...`: hands its arguments to the benchmark lab, the
// `lanes-bench` program that bench/ builds as its own CMake project (the
// scenarios and their peers, kept out of the product). The lab is the
// program named by LANES_BENCH, or else `lanes-bench` next to this `lanes`.
#pragma once

#include <string>
#include <vector>

namespace lanes::tool {

// Replaces this process with the lab, given `args`; returns only when that
// cannot be done, with the exit status to use after saying why on stderr.
int run_bench_lab(const std::vector<std::string>& args);

}  // namespace lanes::tool
