// io_backend (include/lanes/io/io_backend.hpp): parsing, the environment,
// and the once-per-process probe behind `automatic`.
#include <lanes/io/io_backend.hpp>

#include <cstdio>
#include <mutex>
#include <optional>

#include <lanes/budget.hpp>
#include <lanes/config_error.hpp>

#include "io/uring.hpp"

namespace lanes {

std::string_view to_string(io_backend b) noexcept {
  switch (b) {
    case io_backend::epoll:
      return "epoll";
    case io_backend::uring:
      return "uring";
    case io_backend::automatic:
      break;
  }
  return "auto";
}

io_backend parse_io_backend(std::string_view text, std::string_view source) {
  if (text == "auto") return io_backend::automatic;
  if (text == "epoll") return io_backend::epoll;
  if (text == "uring") return io_backend::uring;
  throw config_error(std::string(source) + "=" + std::string(text) + ": not an io backend (epoll, uring or auto)");
}

namespace {

// Whether io_uring runs here, and if not why: asked once per process.
const std::optional<std::string>& uring_unavailable() {
  static const std::optional<std::string> why = []() -> std::optional<std::string> {
    std::string why_not;
    if (detail::uring::probe(why_not)) return std::nullopt;
    return why_not;
  }();
  return why;
}

}  // namespace

io_backend_choice choose_io_backend(io_backend requested) {
  std::string asked = "asked for";
  if (requested == io_backend::automatic) {
    if (const auto env = process_environment()("LANES_IO_BACKEND")) {
      requested = parse_io_backend(*env, "LANES_IO_BACKEND");
      asked = "LANES_IO_BACKEND";
    }
  }
  if (requested == io_backend::epoll) return {io_backend::epoll, asked + " epoll"};
  const auto& unavailable = uring_unavailable();
  if (requested == io_backend::uring) {
    if (unavailable) throw config_error("io backend uring (" + asked + "): io_uring is unavailable: " + *unavailable);
    return {io_backend::uring, asked + " uring"};
  }
  if (!unavailable) return {io_backend::uring, "auto: io_uring is available"};
  io_backend_choice choice{io_backend::epoll, "auto: io_uring is unavailable (" + *unavailable + ")"};
  static std::once_flag said;
  std::call_once(said, [&] { std::fprintf(stderr, "lanes: io backend epoll: %s\n", choice.why.c_str()); });
  return choice;
}

}  // namespace lanes
