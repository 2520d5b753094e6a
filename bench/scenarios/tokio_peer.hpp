// The Tokio peer of S3 and S4 (bench/peers/tokio): a Rust program that runs
// the same scenario on Tokio in its own process and prints its numbers on
// one line. Optional: a machine without cargo or Debian's Tokio crates has
// no peer, and the scenarios then say so instead of printing its row.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace lanes::bench {

// The peer's path: $LANES_TOKIO_PEER if set, else next to an installed
// `lanes` (../libexec/lanes/lanes-tokio-peer), else where this build tree
// built it; empty when none of them is an executable file.
std::string tokio_peer_path();
// "Tokio 1.24.2" (the packaged version it was built from), or "Tokio".
std::string tokio_peer_name();
// Runs the peer with `args` and returns the numbers it printed; nullopt
// (after a line on stderr saying why) when there is no peer or it failed.
std::optional<std::vector<double>> run_tokio_peer(const std::vector<std::string>& args);

}  // namespace lanes::bench
