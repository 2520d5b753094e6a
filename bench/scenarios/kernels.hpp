// Kernels shared by every side of the scenarios (kernels.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lanes::bench {

// S1's f: a = a * 6364136223846793005 + i for i in [0, 20000), from a = x
// (wrapping). About 20-25 us with g++ -O2 on the machines measured.
std::uint64_t s1_f(std::uint64_t x);

// fib(n) by plain recursion, the leaves below S9's cutoff.
std::uint64_t s9_fib_sequential(unsigned n);
// Calls made by the naive recursion of fib(n): 2 fib(n+1) - 1.
std::uint64_t s9_fib_calls(unsigned n);
// The inputs of S9's data-parallel rows (splitmix64), the same for every side.
std::vector<std::uint64_t> s9_data(std::size_t n);

}  // namespace lanes::bench
