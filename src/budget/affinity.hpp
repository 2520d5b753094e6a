// The CPUs in a thread's affinity mask (what `taskset` sets), and setting it.
#pragma once

#include <sys/types.h>

#include <vector>

namespace lanes::detail {

// The CPUs the calling thread (tid 0) or thread `tid` may run on, ascending.
// Throws std::system_error naming sched_getaffinity if the kernel refuses.
std::vector<unsigned> affinity_cpus(pid_t tid = 0);
// Throws std::system_error naming sched_setaffinity if the kernel refuses.
void set_affinity(pid_t tid, const std::vector<unsigned>& cpus);

// The number of CPUs in the calling thread's mask (at least 1), less those
// react threads own (core_reservations.hpp).
unsigned affinity_cpu_count();

}  // namespace lanes::detail
