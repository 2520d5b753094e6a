// S9's peers: oneTBB and OpenMP doing what s9_fork_join.cpp does with
// lanes. Built in their own translation unit (OpenMP flags, TBB headers);
// left out of ThreadSanitizer builds, where s9_peers_available is false and
// the peer functions are not defined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lanes::bench {

#if defined(LANES_S9_PEERS)
inline constexpr bool s9_peers_available = true;
#else
inline constexpr bool s9_peers_available = false;
#endif

// Shared by every side so that the sequential leaves are the same machine
// code (s9_common.cpp; not inlined into any side).
std::uint64_t s9_fib_sequential(unsigned n);
// Calls made by the naive recursion of fib(n): 2 fib(n+1) - 1.
std::uint64_t s9_fib_calls(unsigned n);

// S1's f: a ~20 us fold, the unit of the "2,000 jobs" row.
std::uint64_t s9_job(std::uint64_t x);
// The inputs of the data-parallel rows, the same for every side.
std::vector<std::uint64_t> s9_data(std::size_t n);

// {fib(n) no cutoff ns/task, fib(n) cutoff n < 20 ms, parallel_invoke of two trivial closures ns}
std::vector<double> tbb_fib(unsigned n, unsigned threads, int joins);
// {fib(n) no cutoff ns/task, fib(n) cutoff n < 20 ms}
std::vector<double> omp_fib(unsigned n, unsigned threads);
// {2,000 jobs ms, sum of squares ms, sort ms}; `jobs` and `elements` as the lanes side.
std::vector<double> tbb_data(unsigned threads, std::size_t jobs, std::size_t elements);
std::vector<double> omp_data(unsigned threads, std::size_t jobs, std::size_t elements);

}  // namespace lanes::bench
