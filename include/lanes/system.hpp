// system: the whole of lanes built from one CPU budget - the io runtime,
// its blocking lane, and a compute pool that offload() and gates use - so
// that a main is a few lines:
//
//   int main() {
//     auto sys = lanes::system::builder().build();   // sized by the budget
//     return sys.block_on(serve());
//   }
//
// The split is the budget's (docs/budget.md): io workers = max(1, cpus/2),
// compute threads = cpus, blocking threads up to 512; each number can be
// set here or by its environment variable (LANES_CPUS, LANES_IO_THREADS,
// LANES_COMPUTE_THREADS, LANES_BLOCKING_MAX), the builder winning.
// Destruction stops the io runtime first (cancelling its tasks, whose
// offloaded work is then dropped or discarded), then the compute pool.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <utility>

#include <lanes/budget.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/io/io_backend.hpp>
#include <lanes/io/runtime.hpp>

namespace lanes {

class system_builder;

class system {
 public:
  static system_builder builder();

  system(system&&) noexcept = default;
  system& operator=(system&&) noexcept = delete;
  ~system() = default;

  template <class T>
  T block_on(task<T> t, source_location where = source_location::current()) {
    return io_.block_on(std::move(t), where);
  }
  template <class T>
  join_handle<T> spawn(task<T> t, const char* name = nullptr, source_location where = source_location::current()) {
    return io_.spawn(std::move(t), name, where);
  }

  runtime& io() noexcept { return io_; }
  compute::pool& compute() noexcept { return compute_; }
  blocking_pool& blocking() { return io_.blocking(); }
  const lanes::budget& budget() const noexcept { return budget_; }

 private:
  friend class system_builder;
  system(lanes::budget b, compute::pool pool, runtime rt) noexcept;

  lanes::budget budget_;
  compute::pool compute_;  // declared before io_: destroyed after it
  runtime io_;
};

class system_builder {
 public:
  // Default: budget::detect() (the machine and the LANES_* variables).
  system_builder& budget(lanes::budget b);
  system_builder& io_threads(unsigned n);
  system_builder& compute_threads(unsigned n);
  system_builder& blocking_threads(unsigned n);
  // The compute threads' priority (compute/pool.hpp). Default idle: the io
  // lane preempts them the moment it wakes, and they take every CPU cycle
  // the rest of the process and machine leave (docs/compute.md says when
  // to pick low instead).
  system_builder& compute_priority(compute::thread_priority p);
  // on: compute_priority(low); off: compute_priority(normal).
  system_builder& compute_low_priority(bool on);
  // The io runtime's stall detector (default off; env LANES_STALL_MS).
  system_builder& stall_detector(std::chrono::milliseconds threshold);
  // How long destruction waits for work its cancelled tasks handed to the
  // compute and blocking lanes (runtime_builder::shutdown_timeout; default
  // 30 s). A negative duration is a config_error.
  system_builder& shutdown_timeout(std::chrono::milliseconds d);
  // The io runtime's backend for sockets (runtime_builder::io_backend;
  // default LANES_IO_BACKEND, else automatic).
  system_builder& io_backend(lanes::io_backend b);
  system build();

 private:
  std::optional<lanes::budget> budget_;
  std::optional<unsigned> io_threads_, compute_threads_, blocking_threads_;
  compute::thread_priority compute_priority_ = compute::thread_priority::idle;
  std::optional<std::chrono::milliseconds> stall_;
  std::optional<std::chrono::milliseconds> shutdown_timeout_;
  lanes::io_backend io_backend_ = lanes::io_backend::automatic;
};

}  // namespace lanes
