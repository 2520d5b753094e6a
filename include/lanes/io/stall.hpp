// The stall detector's report: an io worker has not come back to its
// scheduler for longer than the threshold, and this is the task holding it.
#pragma once

#include <chrono>
#include <functional>

#include <lanes/source_location.hpp>

namespace lanes {

struct stall_report {
  unsigned worker = 0;              // which io worker
  const char* task_name = nullptr;  // as given to spawn, or nullptr
  source_location spawned_at;       // where the task was spawned
  std::chrono::nanoseconds held_for{0};
};

// Receives each stall once, on the detector's own thread.
using stall_sink = std::function<void(const stall_report&)>;

}  // namespace lanes
