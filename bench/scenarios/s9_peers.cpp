// oneTBB and OpenMP versions of S9's workloads (see s9_peers.hpp), written
// the way each library's documentation recommends.
#include "s9_peers.hpp"

#include <omp.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/task_arena.h>

#include <chrono>
#include <stdexcept>

namespace lanes::bench {

namespace {

using steady = std::chrono::steady_clock;

template <class F>
double seconds_of(F&& f) {
  const auto start = steady::now();
  f();
  return std::chrono::duration<double>(steady::now() - start).count();
}

std::uint64_t tbb_fib_rec(unsigned n, unsigned cutoff) {
  if (n < 2) return n;
  if (n < cutoff) return s9_fib_sequential(n);
  std::uint64_t a = 0, b = 0;
  tbb::parallel_invoke([&] { a = tbb_fib_rec(n - 1, cutoff); }, [&] { b = tbb_fib_rec(n - 2, cutoff); });
  return a + b;
}

std::uint64_t omp_fib_rec(unsigned n, unsigned cutoff) {
  if (n < 2) return n;
  if (n < cutoff) return s9_fib_sequential(n);
  std::uint64_t a = 0, b = 0;
#pragma omp task shared(a) firstprivate(n, cutoff)
  a = omp_fib_rec(n - 1, cutoff);
  b = omp_fib_rec(n - 2, cutoff);
#pragma omp taskwait
  return a + b;
}

std::uint64_t omp_fib_root(unsigned n, unsigned cutoff, unsigned threads) {
  std::uint64_t result = 0;
#pragma omp parallel num_threads(static_cast<int>(threads))
#pragma omp single
  result = omp_fib_rec(n, cutoff);
  return result;
}

}  // namespace

std::vector<double> tbb_fib(unsigned n, unsigned threads, int joins) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  tbb::task_arena arena(static_cast<int>(threads));
  const std::uint64_t expected = s9_fib_sequential(n);
  std::uint64_t got = 0;
  arena.execute([&] { got = tbb_fib_rec(n - 4, 0); });
  const double no_cutoff = seconds_of([&] { arena.execute([&] { got = tbb_fib_rec(n, 0); }); });
  if (got != expected) throw std::logic_error("tbb fib wrong");
  const double cutoff = seconds_of([&] { arena.execute([&] { got = tbb_fib_rec(n, 20); }); });
  if (got != expected) throw std::logic_error("tbb fib (cutoff) wrong");
  const double join_total = seconds_of([&] {
    arena.execute([&] {
      for (int i = 0; i < joins; ++i) {
        int a = 0, b = 0;
        tbb::parallel_invoke([&] { a = 1; }, [&] { b = 2; });
        got += static_cast<std::uint64_t>(a + b);
      }
    });
  });
  return {no_cutoff * 1e9 / static_cast<double>(s9_fib_calls(n)), cutoff * 1e3, join_total * 1e9 / joins};
}

std::vector<double> omp_fib(unsigned n, unsigned threads) {
  const std::uint64_t expected = s9_fib_sequential(n);
  omp_fib_root(n - 4, 0, threads);
  std::uint64_t got = 0;
  const double no_cutoff = seconds_of([&] { got = omp_fib_root(n, 0, threads); });
  if (got != expected) throw std::logic_error("omp fib wrong");
  const double cutoff = seconds_of([&] { got = omp_fib_root(n, 20, threads); });
  if (got != expected) throw std::logic_error("omp fib (cutoff) wrong");
  return {no_cutoff * 1e9 / static_cast<double>(s9_fib_calls(n)), cutoff * 1e3};
}

}  // namespace lanes::bench
