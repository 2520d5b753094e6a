// What every side of S9 shares (see s9_peers.hpp).
#include "s9_peers.hpp"

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

}  // namespace lanes::bench
