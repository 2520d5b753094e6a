// entry: how work gets into a compute pool. From one of the pool's own
// workers it is pushed on that worker's deque; from anywhere else it goes
// through the pool's injector, and the calling thread blocks until it is
// done (install) or does not wait at all (spawn).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <type_traits>
#include <utility>

#include <lanes/compute/detail/job.hpp>
#include <lanes/compute/detail/worker.hpp>

namespace lanes::compute {
class pool;
}

namespace lanes::compute::detail {

struct pool_state_deleter {
  bool owning = true;
  void operator()(pool_state* r) const noexcept;
};

// The state behind a pool handle.
pool_state& pool_state_of(pool& p);  // runtime_misuse for an empty (moved-from) pool
// Submits a job from outside the pool and wakes a worker for it.
void inject(pool_state& r, job* j);
// Applies the pool's io_worker_policy when the caller is an io worker.
void check_blocking_entry(pool_state& r);
// Detached jobs: counted so that destroying the pool waits for them.
void detached_begin(pool_state& r) noexcept;
void detached_end(pool_state& r) noexcept;
void detached_error(pool_state& r, const std::exception_ptr& error) noexcept;
// The default pool's state (created on first use).
pool_state& default_pool_state();
std::size_t pool_size(const pool_state& r) noexcept;

// The pool a free function (join, scope, an algorithm) works in: the
// calling worker's own, or the default pool.
inline pool_state& current_pool_state() {
  worker* w = current_worker();
  return w != nullptr ? w->owner() : default_pool_state();
}

// A job run for a thread outside the pool, which blocks until it is done.
// The mutex makes the hand-back safe: the waiter cannot return (and destroy
// this job, on its stack) until the setter has unlocked.
template <class F>
class blocking_job : public job {
 public:
  using result_type = std::invoke_result_t<F&>;
  explicit blocking_job(F& f) noexcept : job(&blocking_job::execute), f_(f) {}

  result_type wait_and_take() {
    {
      std::unique_lock lock(mutex_);
      done_cv_.wait(lock, [this] { return done_; });
    }
    if (result_.error) std::rethrow_exception(result_.error);
    return result_.take();
  }

 private:
  static void execute(job* self) noexcept {
    auto* j = static_cast<blocking_job*>(self);
    j->result_.run(j->f_);
    std::lock_guard lock(j->mutex_);
    j->done_ = true;
    j->done_cv_.notify_all();
  }
  F& f_;
  job_result<result_type> result_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
};

template <class F>
std::invoke_result_t<F&> install(pool_state& r, F& f) {
  worker* w = current_worker();
  if (w != nullptr && &w->owner() == &r) return f();
  check_blocking_entry(r);
  blocking_job<F> j(f);
  inject(r, &j);
  return j.wait_and_take();
}

// A detached job: owns its callable, deletes itself when done.
template <class F>
class detached_job : public job {
 public:
  detached_job(pool_state& r, F&& f) : job(&detached_job::execute), state_(r), f_(std::move(f)) {}

 private:
  static void execute(job* self) noexcept {
    auto* j = static_cast<detached_job*>(self);
    pool_state& r = j->state_;
    try {
      j->f_();
    } catch (...) {
      detached_error(r, std::current_exception());
    }
    delete j;  // the callable's destructor runs before the pool may see the count drop
    detached_end(r);
  }
  pool_state& state_;
  F f_;
};

// Counted before it is pushed (a worker may run and uncount it at once);
// a push that throws (std::bad_alloc growing the deque or the injector)
// uncounts and frees it, so the pool's destructor does not wait for it.
template <class F>
void spawn_detached(pool_state& r, F&& f) {
  using stored = std::decay_t<F>;
  auto* j = new detached_job<stored>(r, stored(std::forward<F>(f)));
  detached_begin(r);
  try {
    worker* w = current_worker();
    if (w != nullptr && &w->owner() == &r) {
      w->push(j);
    } else {
      inject(r, j);
    }
  } catch (...) {
    delete j;
    detached_end(r);
    throw;
  }
}

}  // namespace lanes::compute::detail
