// The Rust peers (bench/peers): Tokio for S3 and S4, Rayon for S9. Each is
// a program that runs the same scenario in its own process and prints its
// numbers on one line. Optional: a machine without cargo or Debian's crates
// has no peer, and the scenarios then say so instead of printing its row.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace lanes::bench {

enum class rust_peer { tokio, rayon };

// The peer's path: $LANES_TOKIO_PEER / $LANES_RAYON_PEER if set, else next
// to an installed `lanes` (../libexec/lanes/lanes-tokio-peer), else where
// this build tree built it; empty when none of them is an executable file.
std::string rust_peer_path(rust_peer peer);
// "Tokio 1.24.2" (the packaged version it was built from), or "Tokio".
std::string rust_peer_title(rust_peer peer);
// One peer over a scenario's rounds: asked each round until it is found
// missing or fails, then left out, with its rows and its JSON fields.
class rust_peer_side {
 public:
  explicit rust_peer_side(rust_peer peer) noexcept : peer_(peer) {}
  // Runs the peer with `args` and returns the numbers it printed; nullopt
  // (after a line on stderr saying why, the first time) when there is no
  // peer, it failed, or it printed fewer than `expected` numbers. After
  // one nullopt, present() is false and the peer is not run again.
  std::optional<std::vector<double>> run(const std::vector<std::string>& args, std::size_t expected);
  bool present() const noexcept { return present_; }
  std::string title() const { return rust_peer_title(peer_); }

 private:
  rust_peer peer_;
  bool present_ = true;
};

}  // namespace lanes::bench
