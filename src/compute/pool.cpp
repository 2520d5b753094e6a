// pool, its builder, the default pool, and the out-of-line entry points the
// public templates call (include/lanes/compute/detail/entry.hpp).
#include <lanes/compute/pool.hpp>

#include <limits.h>
#include <pthread.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <utility>

#include <lanes/budget.hpp>
#include <lanes/config_error.hpp>
#include <lanes/detail/handle_state.hpp>
#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/errors.hpp>

#include "compute/pool_state.hpp"
#include "fatal_misuse.hpp"

namespace lanes::compute {

namespace detail {

void pool_state_deleter::operator()(pool_state* r) const noexcept {
  if (owning) delete r;
}

pool_state& pool_state_of(pool& p) {
  return lanes::detail::handle_state(p.state_, "lanes::offload or lanes::gate on a compute pool");
}
void inject(pool_state& r, job* j) { r.inject(j); }
void detached_begin(pool_state& r) noexcept { r.detached_begin(); }
void detached_end(pool_state& r) noexcept { r.detached_end(); }
void detached_error(pool_state& r, const std::exception_ptr& error) noexcept { r.detached_error(error); }

pool_state& default_pool_state() {
  // Never destroyed: its threads live until the process exits, so that a
  // detached job still running at exit cannot hang it (Rayon's choice too).
  static pool_state* const global = new pool_state(pool_options{});
  return *global;
}

void check_blocking_entry(pool_state& r) { r.check_blocking_entry(); }
std::size_t pool_size(const pool_state& r) noexcept { return r.size(); }

void pool_state::check_blocking_entry() {
  if (!lanes::detail::on_runtime_worker()) return;
  const lanes::detail::task_header* task = lanes::detail::current_task();
  const char* name = task != nullptr && task->name() != nullptr ? task->name() : "(unnamed)";
  const char* file = task != nullptr ? task->spawned_at().file_name() : "?";
  const unsigned line = task != nullptr ? static_cast<unsigned>(task->spawned_at().line()) : 0;
  switch (options_.from_io_worker) {
    case io_worker_policy::allow:
      return;
    case io_worker_policy::fail:
      throw runtime_misuse(std::string("lanes: compute work started on an io worker by task '") + name +
                           "' spawned at " + file + ":" + std::to_string(line) +
                           "; it would block every task and timer of that worker until done. Move it off the io "
                           "lane (spawn_blocking, or a thread of your own), or set io_worker_policy::allow");
    case io_worker_policy::warn: {
      std::lock_guard lock(warned_mutex_);
      if (!warned_sites_.emplace(file, line).second) return;
      std::fprintf(stderr,
                   "lanes: warning: compute work started on an io worker by task '%s' spawned at %s:%u; it blocks "
                   "every task and timer of that worker until done (warned once per spawn site)\n",
                   name, file, line);
      return;
    }
  }
}

}  // namespace detail

pool::pool() : pool(pool_options{}) {}
pool::pool(pool_options options) : state_(new detail::pool_state(std::move(options))) {}

namespace {
// Shutting a pool down joins its workers: from one of them it would wait
// for itself. A clear abort instead of a deadlock.
void check_not_own_worker(const detail::pool_state* r) noexcept {
  if (r != nullptr && r->owns(detail::current_worker())) {
    lanes::detail::abort_on_misuse("a compute pool destroyed from one of its own workers cannot join itself");
  }
}
}  // namespace

pool::~pool() { check_not_own_worker(state_.get()); }

pool& pool::operator=(pool&& other) noexcept {
  if (this != &other) {
    check_not_own_worker(state_.get());  // the pool assigned over is shut down here
    state_ = std::move(other.state_);
  }
  return *this;
}

pool_builder pool::builder() { return pool_builder(); }
// An empty (moved-from) pool has no threads and the default priority; the
// calls that would run something on it are a runtime_misuse.
std::size_t pool::threads() const noexcept { return state_ ? state_->size() : 0; }
thread_priority pool::priority() const noexcept {
  return state_ ? state_->options().priority : pool_options{}.priority;
}

const char* describe(thread_priority p) noexcept {
  switch (p) {
    case thread_priority::normal:
      return "normal";
    case thread_priority::low:
      return "low (SCHED_BATCH, nice +5)";
    case thread_priority::idle:
      return "idle (SCHED_IDLE)";
  }
  return "unknown";
}
pool_metrics pool::metrics() const {
  return lanes::detail::handle_state(state_, "lanes::compute::pool::metrics").metrics();
}
bool pool::owns_current_thread() const noexcept { return state_ && state_->owns(detail::current_worker()); }

pool_builder& pool_builder::threads(std::size_t n) {
  if (n == 0) throw config_error("lanes: compute pool threads(0): a pool needs at least one thread");
  if (n > max_lane_threads) {
    throw config_error("lanes: compute pool threads(" + std::to_string(n) + ") is above the limit of " +
                       std::to_string(max_lane_threads));
  }
  options_.threads = n;
  return *this;
}
pool_builder& pool_builder::thread_name(std::string prefix) {
  if (prefix.empty()) throw config_error("lanes: compute pool thread_name(\"\"): give the threads a name");
  options_.thread_name = std::move(prefix);
  return *this;
}
pool_builder& pool_builder::stack_size(std::size_t bytes) {
  if (bytes != 0 && bytes < static_cast<std::size_t>(PTHREAD_STACK_MIN)) {
    throw config_error("lanes: compute pool stack_size(" + std::to_string(bytes) + ") is below the minimum of " +
                       std::to_string(PTHREAD_STACK_MIN) + " bytes");
  }
  options_.stack_size = bytes;
  return *this;
}
pool_builder& pool_builder::priority(thread_priority p) {
  options_.priority = p;
  return *this;
}
pool_builder& pool_builder::low_priority(bool on) {
  return priority(on ? thread_priority::low : thread_priority::normal);
}
pool_builder& pool_builder::from_io_worker(io_worker_policy policy) {
  options_.from_io_worker = policy;
  return *this;
}
pool_builder& pool_builder::on_error(std::function<void(std::exception_ptr)> handler) {
  options_.on_error = std::move(handler);
  return *this;
}
pool_builder& pool_builder::on_thread_start(std::function<void(std::size_t)> hook) {
  options_.on_thread_start = std::move(hook);
  return *this;
}
pool_builder& pool_builder::on_thread_exit(std::function<void(std::size_t)> hook) {
  options_.on_thread_exit = std::move(hook);
  return *this;
}
pool pool_builder::build() { return pool(options_); }

pool& default_pool() {
  // A handle that shares the never-destroyed default pool_state.
  static pool handle(pool::adopt_tag{}, &detail::default_pool_state());
  return handle;
}

}  // namespace lanes::compute
