// Finding and running the Tokio peer (tokio_peer.hpp).
#include "tokio_peer.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace lanes::bench {

namespace {

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

// Everything `argv[0]` writes to stdout, and whether it exited with 0.
bool capture(const std::vector<std::string>& argv, std::string& out) {
  int fds[2];
  if (::pipe(fds) != 0) return false;
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  char buffer[256];
  ssize_t n = 0;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

std::string tokio_peer_path() {
  if (const char* env = std::getenv("LANES_TOKIO_PEER"); env != nullptr && *env != '\0') {
    return executable(env) ? env : "";
  }
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const auto installed = (self.parent_path() / "../libexec/lanes/lanes-tokio-peer").lexically_normal().string();
    if (executable(installed)) return installed;
  }
#ifdef LANES_TOKIO_PEER_BUILT
  if (executable(LANES_TOKIO_PEER_BUILT)) return LANES_TOKIO_PEER_BUILT;
#endif
  return "";
}

std::string tokio_peer_name() {
#ifdef LANES_TOKIO_VERSION
  return std::string("Tokio ") + LANES_TOKIO_VERSION;
#else
  return "Tokio";
#endif
}

std::optional<std::vector<double>> run_tokio_peer(const std::vector<std::string>& args) {
  const std::string path = tokio_peer_path();
  if (path.empty()) {
    std::fprintf(stderr, "(the Tokio peer is not built here: it needs cargo and Debian's librust-tokio-dev)\n");
    return std::nullopt;
  }
  std::vector<std::string> argv{path};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string out;
  if (!capture(argv, out)) {
    std::fprintf(stderr, "(the Tokio peer %s failed)\n", path.c_str());
    return std::nullopt;
  }
  std::istringstream in(out);
  std::vector<double> numbers;
  for (double v = 0; in >> v;) numbers.push_back(v);
  return numbers;
}

}  // namespace lanes::bench
