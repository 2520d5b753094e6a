#include "budget/affinity.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <system_error>

#include "budget/core_reservations.hpp"

namespace lanes::detail {

namespace {

using cpu_set_ptr = std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)>;

cpu_set_ptr allocate_set(int cpus) {
  cpu_set_ptr set(CPU_ALLOC(cpus), [](cpu_set_t* s) { CPU_FREE(s); });
  if (!set) throw std::system_error(ENOMEM, std::generic_category(), "CPU_ALLOC");
  CPU_ZERO_S(CPU_ALLOC_SIZE(cpus), set.get());
  return set;
}

}  // namespace

std::vector<unsigned> affinity_cpus(pid_t tid) {
  // A fixed cpu_set_t holds 1024 CPUs; larger machines need a bigger mask,
  // which the kernel asks for by failing with EINVAL.
  for (int cpus = 1024; cpus <= (1 << 22); cpus *= 2) {
    const cpu_set_ptr set = allocate_set(cpus);
    const std::size_t size = CPU_ALLOC_SIZE(cpus);
    if (::sched_getaffinity(tid, size, set.get()) == 0) {
      std::vector<unsigned> out;
      for (int cpu = 0; cpu < cpus; ++cpu)
        if (CPU_ISSET_S(static_cast<std::size_t>(cpu), size, set.get())) out.push_back(static_cast<unsigned>(cpu));
      return out;
    }
    if (errno != EINVAL) throw std::system_error(errno, std::generic_category(), "sched_getaffinity");
  }
  throw std::system_error(EINVAL, std::generic_category(), "sched_getaffinity: mask larger than 4M CPUs");
}

void set_affinity(pid_t tid, const std::vector<unsigned>& cpus) {
  const unsigned highest = cpus.empty() ? 0 : *std::max_element(cpus.begin(), cpus.end());
  const int capacity = static_cast<int>(std::max(1024U, highest + 1));
  const cpu_set_ptr set = allocate_set(capacity);
  const std::size_t size = CPU_ALLOC_SIZE(capacity);
  for (unsigned cpu : cpus) CPU_SET_S(cpu, size, set.get());
  if (::sched_setaffinity(tid, size, set.get()) != 0)
    throw std::system_error(errno, std::generic_category(), "sched_setaffinity");
}

unsigned affinity_cpu_count() {
  const std::vector<unsigned> mine = affinity_cpus();
  const std::vector<unsigned> owned = reserved_cores();
  const auto usable = std::count_if(mine.begin(), mine.end(), [&](unsigned cpu) {
    return std::find(owned.begin(), owned.end(), cpu) == owned.end();
  });
  return usable > 0 ? static_cast<unsigned>(usable) : 1U;
}

}  // namespace lanes::detail
