// timer_floor: what this machine gives a bare timer while every CPU is busy,
// with no runtime in the way - the floor under S1's and S7's tick lag.
//
// One plain thread waits on a timerfd under epoll with absolute deadlines
// (the way a parked io worker sleeps) while `busy` threads burn CPU at the
// priority the runtime measured beside it gives its compute threads (a
// compute pool of that size and priority, each thread spinning in one job). A runtime's tick
// later than the floor is the runtime's doing; one within it is the
// machine's. In a virtual machine a spinning thread alone can see gaps of
// milliseconds (the host deschedules the vCPU), so the floor's worst tick
// can be in milliseconds however good the runtime.
#pragma once

#include <chrono>
#include <cstddef>

#include <lanes/compute/pool.hpp>

#include "scenario.hpp"

namespace lanes::bench {

lag_stats timer_floor(std::chrono::microseconds period, std::chrono::milliseconds duration, std::size_t busy,
                      compute::thread_priority priority);

}  // namespace lanes::bench
