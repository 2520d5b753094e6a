// What the blocking lane is doing, as part of a runtime's metrics.
#pragma once

#include <cstdint>

namespace lanes {

struct blocking_pool_metrics {
  std::uint32_t threads = 0;         // alive now
  std::uint32_t idle_threads = 0;    // alive and waiting for a job
  std::uint32_t running = 0;         // jobs running now
  std::uint64_t queue_depth = 0;     // jobs waiting for a thread (the cap is reached)
  std::uint64_t jobs_completed = 0;  // counted when the thread is done with a job, just after its result is delivered
  std::uint32_t threads_peak = 0;    // most threads alive at once
};

}  // namespace lanes
