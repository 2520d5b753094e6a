// A snapshot of an io runtime's counters. Counters only grow; depths and
// gauges are what they were at the moment of the snapshot.
#pragma once

#include <cstdint>
#include <vector>

#include <lanes/blocking/metrics.hpp>

namespace lanes {

struct worker_metrics {
  std::uint64_t polls = 0;    // task resumptions
  std::uint64_t steals = 0;   // successful steals from another worker
  std::uint64_t parks = 0;    // times it went to sleep
  std::uint64_t busy_ns = 0;  // time spent running tasks
  std::uint64_t longest_poll_ns = 0;
  std::uint32_t local_queue_depth = 0;
};

struct runtime_metrics {
  unsigned workers = 0;
  std::vector<worker_metrics> per_worker;
  std::uint64_t global_queue_depth = 0;
  std::uint64_t tasks_alive = 0;
  std::uint64_t tasks_spawned = 0;
  std::uint64_t timers_pending = 0;
  std::uint64_t unhandled_exceptions = 0;  // failures of detached tasks
  std::uint64_t stalls_detected = 0;       // by the stall detector, when it is on
  blocking_pool_metrics blocking;          // the runtime's blocking lane (zeros until first used)
};

}  // namespace lanes
