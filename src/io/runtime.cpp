// runtime and runtime_builder: the public face of the io scheduler.
#include <lanes/io/runtime.hpp>

#include "budget/env_values.hpp"
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

runtime_builder& runtime_builder::stall_detector(std::chrono::milliseconds threshold) {
  if (threshold.count() <= 0) {
    throw config_error("runtime_builder::stall_detector(" + std::to_string(threshold.count()) +
                       "ms): the threshold must be at least 1 ms");
  }
  stall_threshold_ = threshold;
  return *this;
}

runtime_builder& runtime_builder::on_stall(stall_sink sink) {
  stall_sink_ = std::move(sink);
  return *this;
}

runtime runtime_builder::build() const {
  detail::scheduler_options options;
  options.current_thread = flavor_ == flavor::current_thread;
  if (!options.current_thread) {
    options.workers = workers_ ? *workers_ : (budget_ ? *budget_ : budget::detect()).io_threads.value;
  }
  options.thread_name = thread_name_;
  options.on_unhandled = handler_;
  // The builder wins over the environment; a bad LANES_STALL_MS is an error either way.
  constexpr unsigned max_stall_ms = 3'600'000;
  const auto env_ms = detail::count_from_env("LANES_STALL_MS", process_environment()("LANES_STALL_MS"), max_stall_ms);
  if (stall_threshold_) {
    options.stall_threshold = *stall_threshold_;
  } else if (env_ms) {
    options.stall_threshold = std::chrono::milliseconds(*env_ms);
  }
  options.on_stall = stall_sink_;
  const bool start_threads = !options.current_thread;
  auto s = std::make_unique<detail::scheduler>(std::move(options));
  if (start_threads) s->start_threads();
  return runtime(std::move(s));
}

runtime::runtime() : runtime(multi_thread().build()) {}
runtime::runtime(std::unique_ptr<detail::scheduler> s) noexcept : scheduler_(std::move(s)) {}
runtime::runtime(runtime&&) noexcept = default;
runtime& runtime::operator=(runtime&&) noexcept = default;
runtime::~runtime() = default;

void runtime::check_block_on_allowed() const {
  if (detail::on_runtime_worker()) {
    throw runtime_misuse("lanes: block_on called from an io worker thread: use co_await inside a task instead");
  }
}

unsigned runtime::worker_count() const noexcept { return scheduler_->worker_count(); }
runtime_metrics runtime::metrics() const { return scheduler_->metrics(); }

}  // namespace lanes
