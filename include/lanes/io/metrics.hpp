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

// What the io lane's frame allocator has taken from the system for task
// frames and spawned tasks' headers. One allocator serves every runtime of
// the process, so these are the process's totals; it keeps what it mapped
// (a service that saw a peak of tasks will likely see it again). Zeros in
// sanitizer builds, whose frames come from the system allocator.
struct frame_memory_metrics {
  std::uint64_t mapped_bytes = 0;     // held for frames, populated as it was mapped
  std::uint64_t huge_page_bytes = 0;  // of which the kernel took as transparent huge pages (advice it may not honour)
  std::uint64_t chunks = 0;           // mappings made
  // Time spent mapping, populating and first writing it, on the threads
  // that needed the memory (a spawn that finds no free block waits for
  // this). In a virtual machine it depends on whether the host still backs
  // the memory the guest kernel hands out.
  std::uint64_t populate_ns = 0;
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
  frame_memory_metrics frame_memory;       // process-wide, see above
};

}  // namespace lanes
