#include "budget/affinity.hpp"

#include <sched.h>

#include <cerrno>
#include <memory>
#include <system_error>

namespace lanes::detail {

unsigned affinity_cpu_count() {
  // A fixed cpu_set_t holds 1024 CPUs; larger machines need a bigger mask,
  // which the kernel asks for by failing with EINVAL.
  for (int cpus = 1024; cpus <= (1 << 22); cpus *= 2) {
    const std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)> set(CPU_ALLOC(cpus), [](cpu_set_t* s) { CPU_FREE(s); });
    if (!set) throw std::system_error(ENOMEM, std::generic_category(), "CPU_ALLOC");
    const std::size_t size = CPU_ALLOC_SIZE(cpus);
    CPU_ZERO_S(size, set.get());
    if (::sched_getaffinity(0, size, set.get()) == 0) {
      const int count = CPU_COUNT_S(size, set.get());
      return count > 0 ? static_cast<unsigned>(count) : 1U;
    }
    if (errno != EINVAL) throw std::system_error(errno, std::generic_category(), "sched_getaffinity");
  }
  throw std::system_error(EINVAL, std::generic_category(), "sched_getaffinity: mask larger than 4M CPUs");
}

}  // namespace lanes::detail
