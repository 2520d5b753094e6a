// S9's peers: oneTBB and OpenMP doing what s9_fork_join.cpp does with
// lanes, in their own translation unit (OpenMP flags, TBB headers).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels.hpp"

namespace lanes::bench {

// Wall seconds of one call of f.
template <class F>
double seconds_of(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The fastest of `reps` calls of f. The short data-parallel rows (a sum of
// milliseconds) are stretched now and then by a vCPU the host did not run; every
// side of a row is measured this way, after the same warm-up call.
inline constexpr int short_row_reps = 5;
template <class F>
double best_seconds_of(F&& f, int reps = short_row_reps) {
  double best = seconds_of(f);
  for (int i = 1; i < reps; ++i) best = std::min(best, seconds_of(f));
  return best;
}

// {fib(n) no cutoff ns/task, fib(n) cutoff n < 20 ms, parallel_invoke of two trivial closures ns}
std::vector<double> tbb_fib(unsigned n, unsigned threads, int joins);
// {fib(n) no cutoff ns/task, fib(n) cutoff n < 20 ms}
std::vector<double> omp_fib(unsigned n, unsigned threads);
// {2,000 jobs ms, sum of squares ms, sort ms}; `jobs` and `elements` as the lanes side.
std::vector<double> tbb_data(unsigned threads, std::size_t jobs, std::size_t elements);
std::vector<double> omp_data(unsigned threads, std::size_t jobs, std::size_t elements);

}  // namespace lanes::bench
