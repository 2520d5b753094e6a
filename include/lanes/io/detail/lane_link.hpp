// lane_link: what another lane attaches to an io runtime. The bridge is the
// one lane that does (include/lanes/bridge/detail/offload_link.hpp: where a
// runtime's offloads go, and how many of its tasks wait on one); the io
// lane knows it only through this interface, and asks it one thing: how
// long a worker that found no work keeps looking before it parks - a task
// waiting on a short hand-off gets its result back sooner than a parked
// worker wakes up.
//
// A runtime holds at most one link, installed once and never replaced; it
// owns the link and destroys it after its workers have stopped.
#pragma once

#include <cstdint>
#include <memory>

namespace lanes::detail {

class scheduler;

class lane_link {
 public:
  lane_link() = default;
  lane_link(const lane_link&) = delete;
  lane_link& operator=(const lane_link&) = delete;
  virtual ~lane_link() = default;

  // Nanoseconds an idle worker keeps looking for work before it parks;
  // 0: park at once. Called by idle workers, concurrently.
  virtual std::uint64_t look_before_park_ns() const noexcept = 0;
};

// The link installed on `owner`, or nullptr. An acquire load: what the
// installer wrote into the link before installing it is visible.
lane_link* installed_link(scheduler& owner) noexcept;
// Installs `link` on `owner` unless one is installed already; returns the
// one installed (`link` is destroyed if it came second).
lane_link& install_link(scheduler& owner, std::unique_ptr<lane_link> link) noexcept;

}  // namespace lanes::detail
