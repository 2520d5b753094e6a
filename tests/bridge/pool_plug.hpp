// pool_plug: keeps a compute pool's threads busy until released, so that
// work offloaded meanwhile waits in the pool's queue (dropped unrun if its
// task is cancelled; a queue that must grow).
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

#include <lanes/compute/pool.hpp>

namespace lanes::testing_support {

struct pool_plug {
  std::atomic<bool> release{false};
  std::atomic<bool> holding{false};
  // Occupies one of the pool's threads (call once per thread to plug).
  void hold(compute::pool& pool) {
    holding = false;
    pool.spawn([this] {
      holding = true;
      while (!release.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
    });
    while (!holding.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
};

}  // namespace lanes::testing_support
