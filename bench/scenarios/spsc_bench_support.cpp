#include "spsc_bench_support.hpp"

#include <sched.h>

#include <vector>

namespace lanes::bench {

namespace {

const std::vector<unsigned>& process_cpus() {
  static const std::vector<unsigned> cpus = [] {
    std::vector<unsigned> out;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
      for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
    }
    if (out.empty()) out.push_back(0);
    return out;
  }();
  return cpus;
}

void set_mask(const std::vector<unsigned>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (unsigned cpu : cpus) CPU_SET(cpu, &set);
  (void)sched_setaffinity(0, sizeof set, &set);  // best effort: a benchmark still runs unpinned
}

}  // namespace

void pin_to_nth_cpu(unsigned k) {
  const auto& cpus = process_cpus();
  set_mask({cpus[k % cpus.size()]});
}

void unpin() { set_mask(process_cpus()); }

bool two_cpus() { return process_cpus().size() >= 2; }

}  // namespace lanes::bench
