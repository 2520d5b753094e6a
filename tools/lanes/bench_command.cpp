// `lanes bench` (see bench_command.hpp).
#include "bench_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "program_path.hpp"

namespace lanes::tool {

namespace {

constexpr int exit_no_lab = 1;

}  // namespace

int run_bench_lab(const std::vector<std::string>& args) {
  const auto lab = locate_program("LANES_BENCH", "lanes-bench");
  if (lab.path.empty()) {
    std::cerr << "lanes bench: the benchmark lab is not installed here (looked at " << lab.looked_at << ").\n"
              << "The lab is its own CMake project in bench/; `bash scripts/bench.sh` builds it and installs it\n"
              << "next to a staged `lanes` (docs/benchmarks.md), or set LANES_BENCH to a lanes-bench program.\n";
    return exit_no_lab;
  }
  std::vector<char*> argv{const_cast<char*>(lab.path.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  std::cerr << "lanes bench: could not run " << lab.path << ": " << std::strerror(errno) << '\n';
  return exit_no_lab;
}

}  // namespace lanes::tool
