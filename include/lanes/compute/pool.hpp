// pool: the compute lane's threads. Each worker owns a work-stealing deque;
// work from outside the pool enters through a shared injector; idle workers
// sleep and are woken within microseconds of new work (see detail/event_count.hpp).
//
//   auto p = lanes::compute::pool::builder().threads(4).build();
//   auto [a, b] = p.install([] { return lanes::compute::join(left, right); });
//
// - lanes::compute::default_pool() is created on first use, sized by the
//   budget (compute_threads; env LANES_COMPUTE_THREADS).
// - install(f) runs f on a worker of this pool and returns its result (or
//   rethrows its exception). From a plain thread it blocks that thread;
//   from an io worker it applies the pool's io_worker_policy first.
// - spawn(f) runs f detached; an exception goes to the pool's error
//   handler (default: a line on stderr, and counted), never terminate.
// - Destroying a pool runs every job already submitted to it, then stops
//   and joins its threads: nothing is dropped or leaked. Destroying it from
//   one of its own workers is a usage error (it cannot join itself). A
//   moved-from pool is empty: only destruction and assignment are valid.
// - The default pool is never destroyed: its threads live until the
//   process exits, so that a detached job still running then cannot hang
//   the exit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <lanes/compute/detail/entry.hpp>
#include <lanes/detail/handle_state.hpp>

namespace lanes::compute {

// What compute work started on an io worker (a blocking entry into the
// pool from a task) does. Compute work there freezes every task and timer
// of that worker until it is done.
enum class io_worker_policy {
  warn,   // once per pool and spawn site of the offending task: a line on stderr; then it runs
  fail,   // throws lanes::runtime_misuse
  allow,  // runs, silently
};

// How a pool's threads share a CPU with the io lane and the rest of the
// machine (docs/compute.md). All three are allowed unprivileged.
enum class thread_priority {
  normal,  // like the process's other threads
  low,     // SCHED_BATCH, nice +5: an io worker gets ~3x their CPU share, but
           // one that wakes may wait out a compute thread's time slice
           // (milliseconds: docs/benchmarks.md, S1)
  idle,    // SCHED_IDLE: run only on CPU time no normal thread wants; an io
           // worker that wakes preempts at once. Starves while other busy
           // threads share the CPUs (other processes too, unless a cgroup
           // holds them apart): for a service whose io lane comes first
};

// "normal", "low (SCHED_BATCH, nice +5)", "idle (SCHED_IDLE)": for logs and `lanes demo`.
const char* describe(thread_priority p) noexcept;

struct pool_options {
  std::size_t threads = 0;                    // 0: the budget's compute_threads
  std::string thread_name = "lanes-compute";  // threads are named <name>-<index>
  std::size_t stack_size = 0;                 // bytes; 0: the system default
  thread_priority priority = thread_priority::low;
  io_worker_policy from_io_worker = io_worker_policy::warn;
  std::function<void(std::exception_ptr)> on_error;  // detached jobs' exceptions; default: stderr
  std::function<void(std::size_t)> on_thread_start;  // runs on each worker as it starts (its index)
  std::function<void(std::size_t)> on_thread_exit;
};

struct worker_metrics {
  std::uint64_t jobs_run = 0;  // jobs taken from a queue (popped, stolen or injected) and run
  std::uint64_t steals = 0;
  std::uint64_t sleeps = 0;
};

struct pool_metrics {
  std::size_t threads = 0;
  std::vector<worker_metrics> workers;
  std::uint64_t injected = 0;          // jobs submitted from outside the pool
  std::uint64_t detached_pending = 0;  // spawned jobs not yet finished
  std::uint64_t detached_errors = 0;   // exceptions that reached the error handler
  std::uint32_t sleeping = 0;          // workers asleep now
};

class pool_builder;

class pool {
 public:
  // A pool with the default options (threads from the budget).
  pool();
  explicit pool(pool_options options);
  // A moved-from pool is empty: threads() is 0, and install, spawn,
  // metrics, offload and gate on it are a runtime_misuse.
  pool(pool&&) noexcept = default;
  // The pool given up is shut down first, with the destructor's check.
  pool& operator=(pool&& other) noexcept;
  ~pool();

  static pool_builder builder();

  template <class F>
  std::invoke_result_t<F&> install(F&& f) {
    return detail::install(lanes::detail::handle_state(state_, "lanes::compute::pool::install"), f);
  }
  template <class F>
  void spawn(F&& f) {
    detail::spawn_detached(lanes::detail::handle_state(state_, "lanes::compute::pool::spawn"), std::forward<F>(f));
  }

  std::size_t threads() const noexcept;
  thread_priority priority() const noexcept;  // as asked for; the kernel may have refused it (see apply_priority)
  pool_metrics metrics() const;
  // True when the calling thread is one of this pool's workers.
  bool owns_current_thread() const noexcept;

 private:
  friend pool& default_pool();
  friend detail::pool_state& detail::pool_state_of(pool& p);
  struct adopt_tag {};
  // A handle to a pool state it does not own (the default pool's).
  pool(adopt_tag, detail::pool_state* r) noexcept : state_(r, detail::pool_state_deleter{false}) {}

  std::unique_ptr<detail::pool_state, detail::pool_state_deleter> state_;
};

class pool_builder {
 public:
  pool_builder& threads(std::size_t n);  // default: budget compute_threads (env LANES_COMPUTE_THREADS); 0 is an error
  pool_builder& thread_name(std::string prefix);          // default "lanes-compute"
  pool_builder& stack_size(std::size_t bytes);            // default: the system's
  pool_builder& priority(thread_priority p);              // default low (SCHED_BATCH, nice +5)
  pool_builder& low_priority(bool on);                    // on: priority(low); off: priority(normal)
  pool_builder& from_io_worker(io_worker_policy policy);  // default warn
  pool_builder& on_error(std::function<void(std::exception_ptr)> handler);
  pool_builder& on_thread_start(std::function<void(std::size_t)> hook);
  pool_builder& on_thread_exit(std::function<void(std::size_t)> hook);
  pool build();
  const pool_options& options() const noexcept { return options_; }

 private:
  pool_options options_;
};

// The process-wide pool, created on first use from the budget.
pool& default_pool();

}  // namespace lanes::compute
