// The io worker sweep on lanes (io_sweep.hpp).
#include "io_sweep.hpp"

#include <chrono>
#include <vector>

#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>

namespace lanes::tool {

namespace {

task<void> sweep_task() {
  io_sweep_spin(io_sweep_steps);
  co_await sleep(std::chrono::milliseconds(1));
}

}  // namespace

__attribute__((noinline)) std::uint64_t io_sweep_spin(std::uint64_t steps) {
  volatile std::uint64_t x = 0;  // kept from being optimised away
  for (std::uint64_t i = 0; i < steps; ++i) x = x + i * i;
  return x;
}

io_sweep_plan io_sweep_plan_for(bool quick) {
  if (quick) return {2'000, {1, 2, 4}, 1};
  return {20'000, {1, 2, 4, 8, 16, 64}, 3};
}

double io_sweep_ms(unsigned workers, int tasks) {
  auto rt = runtime::multi_thread().worker_threads(workers).build();
  const auto start = std::chrono::steady_clock::now();
  rt.block_on([](int n) -> task<void> {
    std::vector<join_handle<void>> handles;
    handles.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) handles.push_back(spawn(sweep_task()));
    for (auto& h : handles) co_await h;
  }(tasks));
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace lanes::tool
