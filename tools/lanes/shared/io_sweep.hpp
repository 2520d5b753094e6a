// The io worker sweep (S5) on lanes: many short tasks, each a CPU loop then
// a 1 ms sleep, on a runtime of a given worker count. Run by `lanes sweep`,
// and by the benchmark lab's S5, which adds an Asio io_context run by as
// many threads.
#pragma once

#include <cstdint>
#include <vector>

namespace lanes::tool {

// The CPU part of one sweep task: `steps` turns of a loop the compiler
// cannot remove. Every side of S5 calls this one.
std::uint64_t io_sweep_spin(std::uint64_t steps);

// Steps of io_sweep_spin per task.
inline constexpr std::uint64_t io_sweep_steps = 2000;

// What one sweep runs: full, or the short form the tests run (`quick`).
struct io_sweep_plan {
  int tasks;
  std::vector<unsigned> worker_counts;
  int rounds;  // per worker count; the median is reported
};
io_sweep_plan io_sweep_plan_for(bool quick);

// Wall time in ms of `tasks` sweep tasks spawned at once on a runtime of
// `workers` io workers, until the last one ends.
double io_sweep_ms(unsigned workers, int tasks);

}  // namespace lanes::tool
