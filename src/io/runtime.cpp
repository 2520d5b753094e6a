// runtime and runtime_builder: the public face of the io scheduler.
#include <lanes/io/runtime.hpp>

#include "budget/env_values.hpp"
#include "fatal_misuse.hpp"
#include "io/scheduler.hpp"

namespace lanes {

runtime_builder& runtime_builder::worker_threads(unsigned n) {
  if (n == 0) throw config_error("runtime_builder::worker_threads(0): an io runtime needs at least one worker");
  if (n > max_lane_threads) {
    throw config_error("runtime_builder::worker_threads(" + std::to_string(n) + "): larger than " +
                       std::to_string(max_lane_threads));
  }
  workers_ = n;
  return *this;
}

runtime_builder& runtime_builder::thread_name(std::string prefix) {
  if (prefix.empty()) throw config_error("runtime_builder::thread_name(\"\"): give a non-empty prefix");
  thread_name_ = std::move(prefix);
  return *this;
}

runtime_builder& runtime_builder::budget(const lanes::budget& b) {
  budget_ = b;
  return *this;
}

runtime_builder& runtime_builder::on_unhandled_exception(unhandled_exception_handler handler) {
  handler_ = std::move(handler);
  return *this;
}

namespace {
// The stall threshold's range, for the builder and LANES_STALL_MS alike: a
// stall is a worker held for milliseconds to minutes, and an hour is far
// past any (the monitor works in nanoseconds, whose count a threshold of
// milliseconds::max() would overflow).
constexpr unsigned max_stall_ms = 3'600'000;
}  // namespace

runtime_builder& runtime_builder::stall_detector(std::chrono::milliseconds threshold) {
  if (threshold.count() <= 0 || threshold.count() > max_stall_ms) {
    throw config_error("runtime_builder::stall_detector(" + std::to_string(threshold.count()) +
                       "ms): the threshold must be 1 to " + std::to_string(max_stall_ms) + " ms");
  }
  stall_threshold_ = threshold;
  return *this;
}

runtime_builder& runtime_builder::on_stall(stall_sink sink) {
  stall_sink_ = std::move(sink);
  return *this;
}

runtime_builder& runtime_builder::blocking_threads(unsigned n) {
  if (n == 0) throw config_error("runtime_builder::blocking_threads(0): the blocking lane needs at least one thread");
  if (n > max_blocking_threads) {
    throw config_error("runtime_builder::blocking_threads(" + std::to_string(n) + "): larger than " +
                       std::to_string(max_blocking_threads));
  }
  blocking_threads_ = n;
  return *this;
}

runtime_builder& runtime_builder::blocking_keep_alive(std::chrono::milliseconds d) {
  if (d.count() <= 0) throw config_error("runtime_builder::blocking_keep_alive: must be positive");
  blocking_keep_alive_ = d;
  return *this;
}

runtime_builder& runtime_builder::shutdown_timeout(std::chrono::milliseconds d) {
  if (d.count() < 0) throw config_error("runtime_builder::shutdown_timeout: must not be negative");
  shutdown_timeout_ = d;
  return *this;
}

runtime runtime_builder::build() const {
  detail::scheduler_options options;
  options.current_thread = flavor_ == flavor::current_thread;
  // The budget is read only when a number is not given.
  std::optional<lanes::budget> detected;
  const auto the_budget = [&]() -> const lanes::budget& {
    if (budget_) return *budget_;
    if (!detected) detected = budget::detect();
    return *detected;
  };
  if (!options.current_thread) options.workers = workers_ ? *workers_ : the_budget().io_threads.value;
  options.blocking.max_threads = blocking_threads_ ? *blocking_threads_ : the_budget().blocking_max.value;
  options.blocking.keep_alive = blocking_keep_alive_;
  options.shutdown_timeout = shutdown_timeout_;  // the blocking pool gets what is left of it (scheduler::shutdown)
  options.thread_name = thread_name_;
  options.on_unhandled = handler_;
  // The builder wins over the environment; a bad LANES_STALL_MS is an error either way.
  const auto env_ms = detail::count_from_env("LANES_STALL_MS", process_environment()("LANES_STALL_MS"), max_stall_ms);
  if (stall_threshold_) {
    options.stall_threshold = *stall_threshold_;
  } else if (env_ms) {
    options.stall_threshold = std::chrono::milliseconds(*env_ms);
  }
  options.on_stall = stall_sink_;
  options.uring = choose_io_backend(io_backend_).backend == lanes::io_backend::uring;
  const bool start_threads = !options.current_thread;
  auto s = std::make_unique<detail::scheduler>(std::move(options));
  if (start_threads) s->start_threads();
  return runtime(std::move(s));
}

runtime::runtime() : runtime(multi_thread().build()) {}
runtime::runtime(std::unique_ptr<detail::scheduler> s) noexcept : scheduler_(std::move(s)) {}
runtime::runtime(runtime&&) noexcept = default;

namespace {
// A worker that shut down its own runtime would wait in join() for itself
// (std::thread reports "Resource deadlock avoided" and the process
// terminated with no word of lanes). Say what happened instead.
void check_not_own_worker(const detail::scheduler* s) noexcept {
  if (s != nullptr && s->is_own_thread()) {
    detail::abort_on_misuse("an io runtime destroyed from one of its own worker threads cannot join itself");
  }
}
}  // namespace

runtime& runtime::operator=(runtime&& other) noexcept {
  if (this != &other) {
    check_not_own_worker(scheduler_.get());  // the runtime assigned over is shut down here
    scheduler_ = std::move(other.scheduler_);
  }
  return *this;
}

runtime::~runtime() { check_not_own_worker(scheduler_.get()); }

void runtime::check_block_on_allowed() const {
  if (detail::on_runtime_worker()) {
    throw runtime_misuse("lanes: block_on called from an io worker thread: use co_await inside a task instead");
  }
}

unsigned runtime::worker_count() const noexcept { return scheduler_ ? scheduler_->worker_count() : 0; }
lanes::io_backend runtime::io_backend() const {
  return detail::handle_state(scheduler_, "lanes::runtime::io_backend").io_driver().uses_uring()
             ? lanes::io_backend::uring
             : lanes::io_backend::epoll;
}

runtime_metrics runtime::metrics() const {
  return detail::handle_state(scheduler_, "lanes::runtime::metrics").metrics();
}
detail::scheduler& detail::scheduler_of(runtime& rt) { return detail::handle_state(rt.scheduler_, "lanes::system"); }

blocking_pool& runtime::blocking() { return detail::handle_state(scheduler_, "lanes::runtime::blocking").blocking(); }

}  // namespace lanes
