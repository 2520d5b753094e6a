// Finding and running the Rust peers (rust_peer.hpp).
#include "rust_peer.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "child_process.hpp"
#include "program_path.hpp"

// Where this build made no peer, CMake defines nothing: empty strings.
#ifndef LANES_TOKIO_PEER_BUILT
#define LANES_TOKIO_PEER_BUILT ""
#define LANES_TOKIO_VERSION ""
#endif
#ifndef LANES_RAYON_PEER_BUILT
#define LANES_RAYON_PEER_BUILT ""
#define LANES_RAYON_VERSION ""
#endif

namespace lanes::bench {

namespace {

// Everything `argv[0]` writes to stdout, and whether it exited with 0.
bool capture(const std::vector<std::string>& argv, std::string& out) {
  const child_process child = start_child(argv);
  if (child.pid < 0) return false;
  char buffer[256];
  ssize_t n = 0;
  while ((n = ::read(child.stdout_fd, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<std::size_t>(n));
  ::close(child.stdout_fd);
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// What this build knows of a peer (CMake defines the macros where it built one).
struct peer_info {
  const char* program;  // lanes-tokio-peer
  const char* env;      // LANES_TOKIO_PEER
  const char* label;    // Tokio
  const char* built;    // its path in this build tree, or ""
  const char* version;  // the crate's version, or ""
};

peer_info info(rust_peer peer) {
  switch (peer) {
    case rust_peer::tokio:
      return {"lanes-tokio-peer", "LANES_TOKIO_PEER", "Tokio", LANES_TOKIO_PEER_BUILT, LANES_TOKIO_VERSION};
    case rust_peer::rayon:
      return {"lanes-rayon-peer", "LANES_RAYON_PEER", "Rayon", LANES_RAYON_PEER_BUILT, LANES_RAYON_VERSION};
  }
  return {"", "", "", "", ""};
}

}  // namespace

std::string rust_peer_path(rust_peer peer) {
  const peer_info p = info(peer);
  // Its variable, else installed beside the lab, else where this build made it.
  const auto found = tool::locate_program(p.env, std::string("../libexec/lanes/") + p.program);
  if (found.from_env || !found.path.empty()) return found.path;
  return tool::is_executable(p.built) ? p.built : "";
}

std::string rust_peer_title(rust_peer peer) {
  const peer_info p = info(peer);
  return *p.version != '\0' ? std::string(p.label) + " " + p.version : p.label;
}

std::optional<std::vector<double>> rust_peer_side::run(const std::vector<std::string>& args, std::size_t expected) {
  if (!present_) return std::nullopt;
  present_ = false;  // until it has printed its numbers
  const std::string path = rust_peer_path(peer_);
  const peer_info p = info(peer_);
  if (path.empty()) {
    std::fprintf(stderr, "(the %s peer is not built here: it needs cargo and Debian's crates)\n", p.label);
    return std::nullopt;
  }
  std::vector<std::string> argv{path};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string out;
  if (!capture(argv, out)) {
    std::fprintf(stderr, "(the %s peer %s failed)\n", p.label, path.c_str());
    return std::nullopt;
  }
  std::istringstream in(out);
  std::vector<double> numbers;
  for (double v = 0; in >> v;) numbers.push_back(v);
  if (numbers.size() < expected) {
    std::fprintf(stderr, "(the %s peer printed %zu numbers, not %zu)\n", p.label, numbers.size(), expected);
    return std::nullopt;
  }
  present_ = true;
  return numbers;
}

}  // namespace lanes::bench
