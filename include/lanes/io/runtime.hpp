// The io runtime: where waiting work lives. Tasks are lanes::task<T>
// coroutines, spawned onto either
//   - a multi-thread scheduler: N workers (default: the budget's io_threads),
//     each with a local run queue and a LIFO slot, a global injection queue,
//     work stealing and a parking protocol that wakes only the workers
//     needed; or
//   - a current-thread scheduler: everything runs on the thread that calls
//     block_on.
// Destroying the runtime cancels the tasks still pending (their frames are
// destroyed, so their destructors run), joins the workers and frees
// everything.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <lanes/source_location.hpp>
#include <memory>
#include <optional>
#include <string>

#include <lanes/blocking/blocking_pool.hpp>
#include <lanes/budget.hpp>
#include <lanes/detail/handle_state.hpp>
#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/io_backend.hpp>
#include <lanes/io/join_handle.hpp>
#include <lanes/io/metrics.hpp>
#include <lanes/io/stall.hpp>
#include <lanes/io/task.hpp>

namespace lanes {

// Where a task came from, for error reports and the stall detector.
struct task_info {
  const char* name = nullptr;  // as given to spawn, or nullptr
  lanes::source_location spawned_at;
};

// Receives the exception of a detached task that failed.
using unhandled_exception_handler = std::function<void(std::exception_ptr, const task_info&)>;

class runtime;

namespace detail {
class scheduler;
// The scheduler behind a runtime, for the bridge (lanes::system); a
// runtime_misuse for an empty (moved-from) runtime.
scheduler& scheduler_of(runtime& rt);
}  // namespace detail

class runtime_builder {
 public:
  enum class flavor { multi_thread, current_thread };
  explicit runtime_builder(flavor f) : flavor_(f) {}

  // Default: the budget's io_threads (LANES_IO_THREADS). 0 is a config_error.
  runtime_builder& worker_threads(unsigned n);
  // Default: "lanes-io" (threads are named lanes-io-0, lanes-io-1, ...).
  runtime_builder& thread_name(std::string prefix);
  // Default: budget::detect().
  runtime_builder& budget(const lanes::budget& b);
  // Default: print the exception and the task's spawn site to stderr.
  runtime_builder& on_unhandled_exception(unhandled_exception_handler handler);
  // Turns the stall detector on: a worker that has not come back to the
  // scheduler for `threshold` is reported once per stall, naming the task.
  // Default: off; env LANES_STALL_MS=<ms> turns it on. The threshold is 1 ms
  // to one hour (3,600,000 ms); outside that, a config_error.
  runtime_builder& stall_detector(std::chrono::milliseconds threshold);
  // Where stall reports go. Default: one line on stderr.
  runtime_builder& on_stall(stall_sink sink);
  // The blocking lane: at most `n` threads. Default: the budget's
  // blocking_max (512; env LANES_BLOCKING_MAX). 0 is a config_error.
  runtime_builder& blocking_threads(unsigned n);
  // An idle blocking thread retires after this. Default: 10 s.
  runtime_builder& blocking_keep_alive(std::chrono::milliseconds d);
  // How long shutdown waits, in all, for work still running on other lanes
  // for this runtime: work that cancelled tasks handed out and that may
  // read their frames (offloads, blocking jobs they await; each is asked
  // to stop through its std::stop_token), and the blocking lane's running
  // jobs. What still runs then is reported on stderr and left running,
  // and the frames it may read stay allocated. Default: 30 s.
  runtime_builder& shutdown_timeout(std::chrono::milliseconds d);
  // How the driver does socket io: epoll, io_uring, or the best this
  // kernel allows (lanes/io/io_backend.hpp). Default: LANES_IO_BACKEND,
  // else automatic. uring where io_uring cannot run: build() throws a
  // config_error saying why.
  runtime_builder& io_backend(lanes::io_backend b) {
    io_backend_ = b;
    return *this;
  }

  runtime build() const;

 private:
  friend class runtime;
  flavor flavor_;
  std::optional<unsigned> workers_;
  std::string thread_name_ = "lanes-io";
  std::optional<lanes::budget> budget_;
  unhandled_exception_handler handler_;
  std::optional<std::chrono::milliseconds> stall_threshold_;
  stall_sink stall_sink_;
  std::optional<unsigned> blocking_threads_;
  std::chrono::milliseconds blocking_keep_alive_{10'000};
  std::chrono::milliseconds shutdown_timeout_{30'000};
  lanes::io_backend io_backend_ = lanes::io_backend::automatic;
};

class runtime {
 public:
  static runtime_builder multi_thread() { return runtime_builder(runtime_builder::flavor::multi_thread); }
  static runtime_builder current_thread() { return runtime_builder(runtime_builder::flavor::current_thread); }

  // A multi-thread runtime sized from the budget.
  runtime();
  // A moved-from runtime is empty: worker_count() is 0, and spawn,
  // block_on, metrics and blocking on it are a runtime_misuse.
  runtime(runtime&&) noexcept;
  // The runtime assigned over is shut down first, as its destructor would.
  runtime& operator=(runtime&&) noexcept;
  // Shuts down: cancels the tasks still pending, joins the workers. From
  // one of its own workers (a task dropping the last owner of its runtime)
  // it cannot join itself: a message on stderr, then abort.
  ~runtime();

  // Starts `t` on this runtime; callable from any thread.
  template <class T>
  join_handle<T> spawn(task<T> t, const char* name = nullptr,
                       lanes::source_location where = lanes::source_location::current()) {
    return spawn_on(detail::handle_state(scheduler_, "lanes::runtime::spawn"), std::move(t), name, where);
  }

  // Runs `t` to completion and returns its result (or rethrows). Call it from
  // a thread that is not an io worker; from inside a task, co_await instead.
  template <class T>
  T block_on(task<T> t, lanes::source_location where = lanes::source_location::current()) {
    check_block_on_allowed();
    auto& s = detail::handle_state(scheduler_, "lanes::runtime::block_on");
    auto handle = spawn_on(s, std::move(t), "block_on", where);
    detail::wait_blocking(s, *handle.header());
    return handle.take_completed_result();
  }

  unsigned worker_count() const noexcept;
  // The backend its sockets use (epoll or uring: io_backend.hpp).
  lanes::io_backend io_backend() const;
  runtime_metrics metrics() const;
  // The runtime's blocking lane, for submitting from outside a task.
  blocking_pool& blocking();

  template <class T>
  static join_handle<T> spawn_on(detail::scheduler& s, task<T> t, const char* name, lanes::source_location where) {
    t.require_valid("lanes::spawn");
    return detail::spawn_reservation<T>().start(s, std::move(t), name, where);
  }

 private:
  friend class runtime_builder;
  friend detail::scheduler& detail::scheduler_of(runtime& rt);
  explicit runtime(std::unique_ptr<detail::scheduler> s) noexcept;
  void check_block_on_allowed() const;
  std::unique_ptr<detail::scheduler> scheduler_;
};

// Spawns a task that always runs on the calling worker's thread, never
// stolen or moved: for tasks that hold thread-affine state (thread-local
// caches, objects that must be destroyed where they were made). Call it
// from inside a task; its join_handle may be awaited from anywhere.
template <class T>
join_handle<T> spawn_local(task<T> t, const char* name = nullptr,
                           lanes::source_location where = lanes::source_location::current()) {
  detail::scheduler* s = detail::current_scheduler();
  if (s == nullptr) [[unlikely]]
    detail::throw_misuse("lanes::spawn_local called outside an io task: call it inside a task");
  const int home = detail::current_worker_index(*s, "lanes::spawn_local");
  t.require_valid("lanes::spawn_local");
  return detail::spawn_reservation<T>().start(*s, std::move(t), name, where, home);
}

// Spawns onto the runtime of the calling task. Outside a runtime it is a
// runtime_misuse error: use runtime::spawn.
template <class T>
join_handle<T> spawn(task<T> t, const char* name = nullptr,
                     lanes::source_location where = lanes::source_location::current()) {
  detail::scheduler* s = detail::current_scheduler();
  if (s == nullptr) [[unlikely]]
    detail::throw_misuse("lanes::spawn called outside an io runtime: use runtime::spawn");
  return runtime::spawn_on(*s, std::move(t), name, where);
}

}  // namespace lanes
