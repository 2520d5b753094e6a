// What probing the machine costs at start-up: every runtime calls
// budget::detect() once (docs/benchmarks.md, "Start-up").
// Peer: std::thread::hardware_concurrency(), which ignores cgroups.
#include <benchmark/benchmark.h>

#include <thread>

#include <lanes/budget.hpp>

namespace {

void probe_cpu_limits(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(lanes::probe_cpu_limits());
}
BENCHMARK(probe_cpu_limits);

void budget_detect(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(lanes::budget::detect());
}
BENCHMARK(budget_detect);

void hardware_concurrency(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(std::thread::hardware_concurrency());
}
BENCHMARK(hardware_concurrency);

}  // namespace
