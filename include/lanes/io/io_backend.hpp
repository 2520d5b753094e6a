// io_backend: the kernel interface the io lane's driver uses for sockets.
//
//   epoll  readiness: the driver reports a socket ready and the task makes
//          the call (recv, accept4).
//   uring  completions for what a socket receives and accepts: a multishot
//          receive (accept) runs in the kernel through io_uring, filling
//          buffers of the driver's buffer ring, and a read takes from what
//          came; writes, connects, UDP and async_fd stay on readiness.
//          (docs/net.md, "Backends".)
//   automatic  uring where the kernel and the sandbox allow it (a probe
//          runs a multishot receive once per process), else epoll, with
//          one line on stderr saying why.
//
// Chosen by runtime_builder::io_backend, else by LANES_IO_BACKEND
// (epoll | uring | auto), else automatic. `lanes budget` shows what a
// process would get.
#pragma once

#include <string>
#include <string_view>

namespace lanes {

enum class io_backend { automatic, epoll, uring };

// "auto", "epoll", "uring".
std::string_view to_string(io_backend b) noexcept;
// Parses "auto" / "epoll" / "uring"; anything else is a config_error
// naming `source` (e.g. "LANES_IO_BACKEND") and the text.
io_backend parse_io_backend(std::string_view text, std::string_view source);

struct io_backend_choice {
  io_backend backend;  // epoll or uring, never automatic
  std::string why;     // one line: what was asked, and why this was taken
};

// What a runtime that asks for `requested` gets. `automatic` reads
// LANES_IO_BACKEND first. uring asked for (here or in the environment)
// where it cannot run is a config_error saying why.
io_backend_choice choose_io_backend(io_backend requested = io_backend::automatic);

}  // namespace lanes
