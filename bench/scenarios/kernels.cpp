// The kernels every side of a scenario shares, compiled once in this
// translation unit with the build's fixed flags and never inlined into a
// side: a kernel's speed can swing several-fold between compilers, so every
// side must call the same machine code. S1's f lives with S1's lanes side
// (tools/lanes/shared/s1_lanes.cpp), under the same rule.
#include "kernels.hpp"

namespace lanes::bench {

__attribute__((noinline)) std::uint64_t s9_fib_sequential(unsigned n) {
  return n < 2 ? n : s9_fib_sequential(n - 1) + s9_fib_sequential(n - 2);
}

std::uint64_t s9_fib_calls(unsigned n) {
  std::uint64_t a = 0, b = 1;
  for (unsigned i = 0; i < n + 1; ++i) {
    const std::uint64_t next = a + b;
    a = b;
    b = next;
  }
  return 2 * a - 1;
}

std::vector<std::uint64_t> s9_data(std::size_t n) {
  std::vector<std::uint64_t> v(n);
  std::uint64_t s = 0x9e3779b97f4a7c15ULL;
  for (auto& x : v) {  // splitmix64: cheap, the same everywhere
    s += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    x = z ^ (z >> 31);
  }
  return v;
}

}  // namespace lanes::bench
