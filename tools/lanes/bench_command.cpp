// `lanes bench` (see bench_command.hpp).
#include "bench_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace lanes::tool {

namespace {

constexpr int exit_no_lab = 1;

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

}  // namespace

lab_location find_bench_lab() {
  if (const char* env = std::getenv("LANES_BENCH"); env != nullptr && *env != '\0') {
    return {executable(env) ? env : "", std::string("LANES_BENCH=") + env};
  }
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {"", "/proc/self/exe (unreadable: " + error.message() + ")"};
  const auto next_to_self = (self.parent_path() / "lanes-bench").string();
  return {executable(next_to_self) ? next_to_self : "", next_to_self};
}

int run_bench_lab(const std::vector<std::string>& args) {
  const auto lab = find_bench_lab();
  if (lab.program.empty()) {
    std::cerr << "lanes bench: the benchmark lab is not installed here (looked at " << lab.looked_at << ").\n"
              << "The lab is its own CMake project in bench/; `bash scripts/bench.sh` builds it and installs it\n"
              << "next to a staged `lanes` (docs/benchmarks.md), or set LANES_BENCH to a lanes-bench program.\n";
    return exit_no_lab;
  }
  std::vector<char*> argv{const_cast<char*>(lab.program.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  std::cerr << "lanes bench: could not run " << lab.program << ": " << std::strerror(errno) << '\n';
  return exit_no_lab;
}

}  // namespace lanes::tool
