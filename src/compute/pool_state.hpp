// pool_state: a compute pool's shared state - its workers and their threads,
// the injector for work from outside, the idle signal, the count of
// detached jobs and the error handler. `pool` is a handle to one.
//
// Shutdown, in order: (1) wait until every detached job has finished (they
// may spawn more, so this is a count, not a queue drain); (2) set
// `stopping_` and wake every worker; (3) join the threads. Jobs a caller
// still waits on (install, join, scope) cannot be pending at (2): their
// callers are blocked in them, so the pool is not being destroyed.
#pragma once

#include <pthread.h>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <lanes/compute/detail/job.hpp>
#include <lanes/compute/detail/worker.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/detail/event_count.hpp>

namespace lanes::compute::detail {

class pool_state {
 public:
  explicit pool_state(pool_options options);
  ~pool_state();
  pool_state(const pool_state&) = delete;
  pool_state& operator=(const pool_state&) = delete;

  void inject(job* j);
  // A job from the injector, or nullptr (a relaxed size check first: the
  // lock is taken only when there may be something).
  job* take_injected() noexcept;
  // Tries every other worker once, starting at a random one.
  job* steal_for(worker& thief, std::uint64_t& seed) noexcept;

  bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }
  std::size_t size() const noexcept { return workers_.size(); }
  const pool_options& options() const noexcept { return options_; }

  void detached_begin() noexcept { detached_.fetch_add(1, std::memory_order_relaxed); }
  void detached_end() noexcept;
  void detached_error(const std::exception_ptr& error) noexcept;

  void check_blocking_entry();
  pool_metrics metrics() const;
  bool owns(const worker* w) const noexcept { return w != nullptr && &w->owner() == this; }

 private:
  static void* thread_main(void* arg) noexcept;
  void start_threads();

  pool_options options_;
  // Idle workers sleep on it (event_count.hpp): a job pushed or injected
  // is published, then notified.
  lanes::detail::event_count wakeups_;
  std::vector<std::unique_ptr<worker>> workers_;
  std::vector<pthread_t> threads_;

  alignas(64) std::atomic<std::size_t> injected_size_{0};
  std::mutex injector_mutex_;
  std::deque<job*> injector_;
  std::atomic<std::uint64_t> injected_total_{0};

  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> detached_{0};
  std::atomic<std::uint64_t> detached_errors_{0};
  std::mutex detached_mutex_;  // for the destructor's wait on detached_ reaching 0
  std::condition_variable detached_done_;

  std::mutex warned_mutex_;  // io_worker_policy::warn: the spawn sites already warned about
  std::set<std::pair<std::string, unsigned>> warned_sites_;
};

}  // namespace lanes::compute::detail
