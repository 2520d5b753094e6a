// server_process (server_process.hpp): start it (child_process.hpp), read
// its first line.
#include "server_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "child_process.hpp"

namespace lanes::bench {

server_process::server_process(const std::vector<std::string>& argv, int cpu) {
  const child_process child = start_child(argv, cpu);
  pid_ = child.pid;
  if (pid_ < 0) {
    failure_ = "could not start " + argv[0];
    return;
  }
  const int out = child.stdout_fd;
  std::string line;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < give_up) {
    pollfd p{out, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buffer[128];
    const ssize_t n = ::read(out, buffer, sizeof buffer);
    if (n <= 0) break;  // it exited
    line.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out);
  std::smatch m;
  const std::string first = line.substr(0, line.find('\n'));
  if (std::regex_match(first, m, std::regex("listening on 127\\.0\\.0\\.1:([0-9]+)"))) {
    port_ = static_cast<std::uint16_t>(std::stoul(m[1]));
  } else {
    failure_ = argv[0] + " did not say where it listens (its first line: \"" + first + "\")";
  }
}

std::uint64_t server_process::cpu_ns() const {
  std::uint64_t total = 0;
  const std::string tasks = "/proc/" + std::to_string(pid_) + "/task";
  for (const auto& entry :
       std::filesystem::directory_iterator(tasks, std::filesystem::directory_options::skip_permission_denied)) {
    std::ifstream in(entry.path() / "schedstat");
    std::uint64_t ran = 0;
    if (in >> ran) total += ran;
  }
  return total;
}

server_process::~server_process() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 500; ++i) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
}

}  // namespace lanes::bench
