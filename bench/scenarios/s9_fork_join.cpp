// S9: fork-join. fib(32) by recursive join (no cutoff, and a cutoff at
// n < 20), on one thread and on all; the bare cost of a join of two
// trivial closures. Peers in the same run: oneTBB (parallel_invoke in a
// task_arena of the same size), OpenMP tasks (num_threads the same) and,
// where it was built, Rayon (rayon::join in a pool of the same size:
// bench/peers/rayon). Each side runs in its own process.
//
// Under ThreadSanitizer the peers are not run: their libraries are not
// instrumented, so TSan would report their internal synchronisation.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <lanes/budget.hpp>
#include <lanes/compute/indices.hpp>
#include <lanes/compute/join.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/compute/reduce.hpp>
#include <lanes/compute/sort.hpp>

#include "json_writer.hpp"
#include "rust_peer.hpp"
#include "s9_peers.hpp"
#include "scenario.hpp"

namespace lanes::bench {

namespace {

std::uint64_t fib_join(unsigned n, unsigned cutoff) {
  if (n < 2) return n;
  if (n < cutoff) return s9_fib_sequential(n);
  auto [a, b] = compute::join([=] { return fib_join(n - 1, cutoff); }, [=] { return fib_join(n - 2, cutoff); });
  return a + b;
}

// {no cutoff ns/task, cutoff ms, join ns/call}
std::vector<double> lanes_fib(unsigned n, unsigned threads, int joins) {
  // Normal priority, as the peers run: the comparison is of the engines.
  // (By default compute threads are SCHED_BATCH, nice +5: on a busy machine
  // they yield to everything else, which is the point of them.)
  auto pool = compute::pool::builder().threads(threads).low_priority(false).build();
  const std::uint64_t expected = s9_fib_sequential(n);
  pool.install([&] { return fib_join(n - 4, 0); });  // warm: threads awake, deques grown
  std::uint64_t got = 0;
  const double no_cutoff = seconds_of([&] { got = pool.install([&] { return fib_join(n, 0); }); });
  if (got != expected) throw std::logic_error("lanes fib wrong");
  const double cutoff = seconds_of([&] { got = pool.install([&] { return fib_join(n, 20); }); });
  if (got != expected) throw std::logic_error("lanes fib (cutoff) wrong");
  const double join_total = seconds_of([&] {
    pool.install([&] {
      for (int i = 0; i < joins; ++i) {
        auto [a, b] = compute::join([] { return 1; }, [] { return 2; });
        got += static_cast<std::uint64_t>(a + b);
      }
    });
  });
  return {no_cutoff * 1e9 / static_cast<double>(s9_fib_calls(n)), cutoff * 1e3, join_total * 1e9 / joins};
}

// {2,000 jobs ms, sum of squares ms, sort ms, checksums...}
std::vector<double> lanes_data(unsigned threads, std::size_t jobs, std::size_t elements) {
  // Normal priority, as the peers run: the comparison is of the engines.
  // (By default compute threads are SCHED_BATCH, nice +5: on a busy machine
  // they yield to everything else, which is the point of them.)
  auto pool = compute::pool::builder().threads(threads).low_priority(false).build();
  const auto indices = compute::indices(jobs);
  std::uint64_t jobs_sum = 0;
  const auto run_jobs = [&] {
    jobs_sum = pool.install([&] { return compute::transform_reduce(indices, std::uint64_t{0}, std::plus<>{}, s1_f); });
  };
  run_jobs();  // warm
  const double jobs_ms = best_seconds_of(run_jobs) * 1e3;
  const auto data = s9_data(elements);
  std::uint64_t squares = 0;
  const auto run_squares = [&] {
    squares = pool.install([&] {
      return compute::transform_reduce(data, std::uint64_t{0}, std::plus<>{}, [](std::uint64_t x) { return x * x; });
    });
  };
  run_squares();
  const double squares_ms = best_seconds_of(run_squares) * 1e3;
  auto to_sort = data;
  const double sort_ms = seconds_of([&] { pool.install([&] { compute::sort(to_sort); }); }) * 1e3;
  if (!std::is_sorted(to_sort.begin(), to_sort.end())) throw std::logic_error("lanes sort wrong");
  return {jobs_ms, squares_ms, sort_ms, static_cast<double>(jobs_sum % 1000003),
          static_cast<double>(squares % 1000003)};
}

std::vector<double> sequential_data(std::size_t jobs, std::size_t elements) {
  std::uint64_t jobs_sum = 0;
  const double jobs_ms = best_seconds_of([&] {
                           std::uint64_t acc = 0;
                           for (std::size_t i = 0; i < jobs; ++i) acc += s1_f(i);
                           jobs_sum = acc;
                         }) *
                         1e3;
  const auto data = s9_data(elements);
  std::uint64_t squares = 0;
  const double squares_ms = best_seconds_of([&] {
                              std::uint64_t acc = 0;
                              for (const auto x : data) acc += x * x;
                              squares = acc;
                            }) *
                            1e3;
  auto to_sort = data;
  const double sort_ms = seconds_of([&] { std::sort(to_sort.begin(), to_sort.end()); }) * 1e3;
  return {jobs_ms, squares_ms, sort_ms, static_cast<double>(jobs_sum % 1000003),
          static_cast<double>(squares % 1000003)};
}

struct row {
  const char* what;
  double lanes;
  double tbb;
  double omp;
  double rayon;
};

void print_row(const row& r) {
  const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  std::printf("  %-40s %10.2f %10.2f %10.2f %10.2f %8.2f %8.2f %8.2f\n", r.what, r.lanes, r.tbb, r.omp, r.rayon,
              ratio(r.lanes, r.tbb), ratio(r.lanes, r.omp), ratio(r.lanes, r.rayon));
}

}  // namespace

int run_s9(const options& opts) {
  const unsigned n = opts.quick ? 24 : 32;
  const int joins = opts.quick ? 100'000 : 2'000'000;
  const int rounds = opts.quick ? 1 : 3;
  const unsigned all = budget::detect().compute_threads.value;
  std::vector<unsigned> sizes{1};
  if (all > 1) sizes.push_back(all);

  tool::json_writer json;
  json.begin_object()
      .field("scenario", "S9")
      .field("fib_n", n)
      .field("fib_tasks", static_cast<double>(s9_fib_calls(n)));
  json.field("runs", static_cast<unsigned>(rounds));
  rust_peer_side rayon(rust_peer::rayon);
  if (!opts.json) {
    std::printf("S9: fork-join, fib(%u) = %llu calls, median of %d runs\n", n,
                static_cast<unsigned long long>(s9_fib_calls(n)), rounds);
    std::printf("  %-40s %10s %10s %10s %10s %8s %8s %8s\n", "", "lanes", "oneTBB", "OpenMP", rayon.title().c_str(),
                "/TBB", "/OMP", "/Rayon");
  }
  const auto rayon_field = [&](const std::string& key, double value) {
    if (rayon.present()) {
      json.field(key, value);
    } else {
      json.null_field(key);
    }
  };
  for (unsigned threads : sizes) {
    std::vector<double> l_nc, l_c, l_j, t_nc, t_c, t_j, o_nc, o_c, r_nc, r_c, r_j;
    for (int r = 0; r < rounds; ++r) {
      const auto l = run_isolated([&] { return lanes_fib(n, threads, joins); });
      l_nc.push_back(l[0]);
      l_c.push_back(l[1]);
      l_j.push_back(l[2]);
      const auto t = run_isolated([&] { return tbb_fib(n, threads, joins); });
      t_nc.push_back(t[0]);
      t_c.push_back(t[1]);
      t_j.push_back(t[2]);
      const auto o = run_isolated([&] { return omp_fib(n, threads); });
      o_nc.push_back(o[0]);
      o_c.push_back(o[1]);
      const auto args = {std::string("fib"), std::to_string(n), std::to_string(threads), std::to_string(joins)};
      if (const auto ry = rayon.run(args, 3)) {
        r_nc.push_back((*ry)[0]);
        r_c.push_back((*ry)[1]);
        r_j.push_back((*ry)[2]);
      }
    }
    const std::string at = std::to_string(threads) + (threads == 1 ? " thread" : " threads");
    const row no_cutoff{"fib, no cutoff: ns per task", median(l_nc), median(t_nc), median(o_nc), median(r_nc)};
    const row cutoff{"fib, cutoff n < 20: ms", median(l_c), median(t_c), median(o_c), median(r_c)};
    const row join_cost{"join of two trivial closures: ns", median(l_j), median(t_j), 0, median(r_j)};
    if (!opts.json) {
      std::printf(" %s\n", at.c_str());
      print_row(no_cutoff);
      print_row(cutoff);
      print_row(join_cost);
    }
    const std::string k = "t" + std::to_string(threads) + "_";
    json.field(k + "lanes_fib_ns_per_task", no_cutoff.lanes);
    json.field(k + "tbb_fib_ns_per_task", no_cutoff.tbb);
    json.field(k + "omp_fib_ns_per_task", no_cutoff.omp);
    json.field(k + "lanes_fib_cutoff_ms", cutoff.lanes);
    json.field(k + "tbb_fib_cutoff_ms", cutoff.tbb);
    json.field(k + "omp_fib_cutoff_ms", cutoff.omp);
    json.field(k + "lanes_join_ns", join_cost.lanes);
    json.field(k + "tbb_parallel_invoke_ns", join_cost.tbb);
    rayon_field(k + "rayon_fib_ns_per_task", no_cutoff.rayon);
    rayon_field(k + "rayon_fib_cutoff_ms", cutoff.rayon);
    rayon_field(k + "rayon_join_ns", join_cost.rayon);
  }
  // The data-parallel rows, on all threads, against one sequential run.
  const std::size_t jobs = opts.quick ? 200 : 2000;
  const std::size_t elements = opts.quick ? 200'000 : 10'000'000;
  std::vector<std::vector<double>> l_runs, t_runs, o_runs, r_runs, s_runs;
  for (int r = 0; r < rounds; ++r) {
    l_runs.push_back(run_isolated([&] { return lanes_data(all, jobs, elements); }));
    t_runs.push_back(run_isolated([&] { return tbb_data(all, jobs, elements); }));
    o_runs.push_back(run_isolated([&] { return omp_data(all, jobs, elements); }));
    const auto args = {std::string("data"), std::to_string(all), std::to_string(jobs), std::to_string(elements)};
    if (auto ry = rayon.run(args, 5)) r_runs.push_back(std::move(*ry));
    s_runs.push_back(run_isolated([&] { return sequential_data(jobs, elements); }));
  }
  if (!rayon.present()) r_runs.clear();  // it went missing partway: no row
  const auto med = [](const std::vector<std::vector<double>>& runs, std::size_t i) {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(r[i]);
    return median(v);
  };
  for (const auto* runs : {&l_runs, &t_runs, &o_runs, &r_runs}) {
    for (const auto& r : *runs) {
      if (r[3] != s_runs[0][3] || r[4] != s_runs[0][4]) throw std::logic_error("S9: a side computed another sum");
    }
  }
  const row jobs_row{"2,000 jobs of ~20 us: ms", med(l_runs, 0), med(t_runs, 0), med(o_runs, 0), med(r_runs, 0)};
  const row squares_row{"sum of squares, 10M u64: ms", med(l_runs, 1), med(t_runs, 1), med(o_runs, 1), med(r_runs, 1)};
  const row sort_row{"sort 10M u64: ms", med(l_runs, 2), med(t_runs, 2), med(o_runs, 2), med(r_runs, 2)};
  const double seq_jobs = med(s_runs, 0), seq_squares = med(s_runs, 1), seq_sort = med(s_runs, 2);
  if (!opts.json) {
    std::printf(" %u threads, data-parallel (OpenMP sort: __gnu_parallel::sort; Rayon: par_sort_unstable)%s\n", all,
                opts.quick ? " (quick: 200 jobs, 200,000 elements)" : "");
    print_row(jobs_row);
    print_row(squares_row);
    print_row(sort_row);
    std::printf("  sequential: jobs %.2f ms, squares %.2f ms, std::sort %.2f ms; lanes speed-up %.2fx, %.2fx, %.2fx\n",
                seq_jobs, seq_squares, seq_sort, seq_jobs / jobs_row.lanes, seq_squares / squares_row.lanes,
                seq_sort / sort_row.lanes);
  }
  json.field("data_threads", all)
      .field("jobs", static_cast<std::uint64_t>(jobs))
      .field("elements", static_cast<std::uint64_t>(elements));
  json.field("lanes_jobs_ms", jobs_row.lanes)
      .field("sequential_jobs_ms", seq_jobs)
      .field("lanes_jobs_speedup", seq_jobs / jobs_row.lanes);
  json.field("tbb_jobs_ms", jobs_row.tbb);
  json.field("omp_jobs_ms", jobs_row.omp);
  json.field("lanes_squares_ms", squares_row.lanes).field("sequential_squares_ms", seq_squares);
  json.field("tbb_squares_ms", squares_row.tbb);
  json.field("omp_squares_ms", squares_row.omp);
  json.field("lanes_sort_ms", sort_row.lanes).field("sequential_sort_ms", seq_sort);
  json.field("tbb_sort_ms", sort_row.tbb);
  json.field("omp_sort_ms", sort_row.omp);
  if (rayon.present()) json.field("rayon", rayon.title());
  rayon_field("rayon_jobs_ms", jobs_row.rayon);
  rayon_field("rayon_squares_ms", squares_row.rayon);
  rayon_field("rayon_sort_ms", sort_row.rayon);
  json.end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
