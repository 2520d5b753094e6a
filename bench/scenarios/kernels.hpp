// Kernels shared by every side of the scenarios (kernels.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "s1_lanes.hpp"

namespace lanes::bench {

// S1's f (s1_lanes.hpp), shared with the `lanes` command's demo.
using tool::s1_f;

// fib(n) by plain recursion, the leaves below S9's cutoff.
std::uint64_t s9_fib_sequential(unsigned n);
// Calls made by the naive recursion of fib(n): 2 fib(n+1) - 1.
std::uint64_t s9_fib_calls(unsigned n);
// The inputs of S9's data-parallel rows (splitmix64), the same for every side.
std::vector<std::uint64_t> s9_data(std::size_t n);

}  // namespace lanes::bench
