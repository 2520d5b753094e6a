// The number of CPUs in this thread's affinity mask (what `taskset` sets).
#pragma once

namespace lanes::detail {

// Throws std::system_error naming sched_getaffinity if the kernel refuses.
unsigned affinity_cpu_count();

}  // namespace lanes::detail
