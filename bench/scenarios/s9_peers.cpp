// oneTBB and OpenMP versions of S9's workloads (see s9_peers.hpp), written
// the way each library's documentation recommends.
#include "s9_peers.hpp"

#include <omp.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/task_arena.h>
#include <parallel/algorithm>

#include <algorithm>
#include <chrono>
#include <functional>
#include <stdexcept>

namespace lanes::bench {

namespace {

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
#pragma omp parallel num_threads(static_cast <int>(threads))
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

std::vector<double> tbb_data(unsigned threads, std::size_t jobs, std::size_t elements) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  tbb::task_arena arena(static_cast<int>(threads));
  std::uint64_t jobs_sum = 0;
  const auto run_jobs = [&] {
    arena.execute([&] {
      jobs_sum = tbb::parallel_reduce(
          tbb::blocked_range<std::size_t>(0, jobs), std::uint64_t{0},
          [](const tbb::blocked_range<std::size_t>& r, std::uint64_t acc) {
            for (std::size_t i = r.begin(); i < r.end(); ++i) acc += s1_f(i);
            return acc;
          },
          std::plus<>{});
    });
  };
  run_jobs();  // warm
  const double jobs_ms = best_seconds_of(run_jobs) * 1e3;
  const auto data = s9_data(elements);
  std::uint64_t squares = 0;
  const auto run_squares = [&] {
    arena.execute([&] {
      squares = tbb::parallel_reduce(
          tbb::blocked_range<std::size_t>(0, data.size()), std::uint64_t{0},
          [&](const tbb::blocked_range<std::size_t>& r, std::uint64_t acc) {
            for (std::size_t i = r.begin(); i < r.end(); ++i) acc += data[i] * data[i];
            return acc;
          },
          std::plus<>{});
    });
  };
  run_squares();
  const double squares_ms = best_seconds_of(run_squares) * 1e3;
  auto to_sort = data;
  const double sort_ms =
      seconds_of([&] { arena.execute([&] { tbb::parallel_sort(to_sort.begin(), to_sort.end()); }); }) * 1e3;
  if (!std::is_sorted(to_sort.begin(), to_sort.end())) throw std::logic_error("tbb sort wrong");
  return {jobs_ms, squares_ms, sort_ms, static_cast<double>(jobs_sum % 1000003),
          static_cast<double>(squares % 1000003)};
}

std::vector<double> omp_data(unsigned threads, std::size_t jobs, std::size_t elements) {
  const int nt = static_cast<int>(threads);
  std::uint64_t jobs_sum = 0;
  const auto run_jobs = [&] {
    std::uint64_t acc = 0;
    const auto n = static_cast<long>(jobs);
#pragma omp parallel for num_threads(nt) reduction(+ : acc) schedule(dynamic, 1)
    for (long i = 0; i < n; ++i) acc += s1_f(static_cast<std::uint64_t>(i));
    jobs_sum = acc;
  };
  run_jobs();
  const double jobs_ms = best_seconds_of(run_jobs) * 1e3;
  const auto data = s9_data(elements);
  std::uint64_t squares = 0;
  const auto run_squares = [&] {
    std::uint64_t acc = 0;
    const auto n = static_cast<long>(data.size());
#pragma omp parallel for num_threads(nt) reduction(+ : acc)
    for (long i = 0; i < n; ++i) acc += data[static_cast<std::size_t>(i)] * data[static_cast<std::size_t>(i)];
    squares = acc;
  };
  run_squares();
  const double squares_ms = best_seconds_of(run_squares) * 1e3;
  auto to_sort = data;
  omp_set_num_threads(nt);
  const double sort_ms = seconds_of([&] { __gnu_parallel::sort(to_sort.begin(), to_sort.end()); }) * 1e3;
  if (!std::is_sorted(to_sort.begin(), to_sort.end())) throw std::logic_error("omp sort wrong");
  return {jobs_ms, squares_ms, sort_ms, static_cast<double>(jobs_sum % 1000003),
          static_cast<double>(squares % 1000003)};
}

}  // namespace lanes::bench
