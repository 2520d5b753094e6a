// Measurement helpers (measure.hpp).
#include "measure.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace lanes::tool {

namespace {

std::uint64_t status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(key) + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return std::stoull(line.substr(prefix.size()));
  }
  return 0;
}

}  // namespace

std::uint64_t rss_bytes() { return status_kib("VmRSS") * 1024; }
std::uint64_t peak_rss_bytes() { return status_kib("VmHWM") * 1024; }

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 != 0 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

lag_stats summarize_lags(std::vector<double> lags_us) {
  lag_stats out;
  out.ticks = lags_us.size();
  if (lags_us.empty()) return out;
  std::sort(lags_us.begin(), lags_us.end());
  out.worst_us = lags_us.back();
  out.p99_us = lags_us[std::min(lags_us.size() - 1, lags_us.size() * 99 / 100)];
  return out;
}

std::vector<double> run_isolated(const std::function<std::vector<double>()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    int status = 0;
    try {
      const auto numbers = work();
      const auto bytes = numbers.size() * sizeof(double);
      if (::write(fds[1], numbers.data(), bytes) != static_cast<ssize_t>(bytes)) status = 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "scenario child failed: %s\n", e.what());
      status = 1;
    }
    ::close(fds[1]);
    ::_exit(status);
  }
  ::close(fds[1]);
  std::vector<double> numbers;
  double value = 0;
  while (::read(fds[0], &value, sizeof value) == static_cast<ssize_t>(sizeof value)) numbers.push_back(value);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("the measuring child process failed");
  return numbers;
}

}  // namespace lanes::tool
