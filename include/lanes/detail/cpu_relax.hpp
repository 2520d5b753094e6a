// cpu_relax: the CPU's spin-wait hint (x86 `pause`), for every busy-wait
// loop in the library: it saves power and lets a sibling hyperthread run.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace lanes::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

}  // namespace lanes::detail
