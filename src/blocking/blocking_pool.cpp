// The blocking lane's threads. One mutex guards the queue, the counters and
// the table of running jobs; a condition variable wakes an idle thread for
// a new job (or for shutdown), another wakes shutdown when a thread ends.
#include <lanes/blocking/blocking_pool.hpp>

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include <lanes/detail/saturating_time.hpp>

#include "budget/core_reservations.hpp"

namespace lanes {

namespace detail {

struct running_job {
  const char* name;
  source_location where;
  std::chrono::steady_clock::time_point started;
};

struct blocking_pool_state : std::enable_shared_from_this<blocking_pool_state> {
  blocking_pool::options opts;
  std::mutex mutex;
  std::condition_variable work_ready;
  std::condition_variable thread_ended;
  std::deque<blocking_job> queue;
  std::vector<running_job*> running;  // the running jobs' records, for shutdown reports
  std::uint32_t threads = 0;
  std::uint32_t idle = 0;
  std::uint32_t peak = 0;
  std::uint64_t next_thread_id = 0;
  std::uint64_t completed = 0;
  bool shutting_down = false;

  // Starts a thread, counted only once it exists: if std::thread throws
  // (pthread_create failed: EAGAIN at the process's thread or memory
  // limit), nothing is counted and the error goes to the caller.
  void spawn_thread_locked() {
    const std::string name = (opts.thread_name + "-" + std::to_string(next_thread_id)).substr(0, 15);
    std::thread t([self = shared_from_this()] {
      detail::lane_thread_scope off_react_cores;
      self->run();
    });
    // The new thread blocks on `mutex` (held here) before it reads a count.
    ++next_thread_id;
    ++threads;
    peak = std::max(peak, threads);
    pthread_setname_np(t.native_handle(), name.c_str());
    t.detach();  // the thread holds the state; shutdown waits on thread_ended
  }

  void run() {
    std::unique_lock lock(mutex);
    for (;;) {
      ++idle;
      const bool got = detail::wait_for_saturated(work_ready, lock, opts.keep_alive,
                                                  [&] { return !queue.empty() || shutting_down; });
      --idle;
      if (!got || queue.empty()) break;  // idle past the keep-alive, or shutting down with nothing queued
      blocking_job job = std::move(queue.front());
      queue.pop_front();
      running_job record{job.name(), job.where(), std::chrono::steady_clock::now()};
      running.push_back(&record);
      lock.unlock();
      try {
        job();
      } catch (...) {
        // spawn_blocking's jobs deliver their own exceptions; this is a last resort.
        std::fputs("lanes: a blocking job threw past its handle; the exception is dropped\n", stderr);
      }
      { blocking_job done = std::move(job); }  // destroyed outside the lock
      lock.lock();
      running.erase(std::find(running.begin(), running.end(), &record));
      ++completed;
    }
    --threads;
    thread_ended.notify_all();
  }
};

}  // namespace detail

blocking_pool::blocking_pool(options opts) : state_(std::make_shared<detail::blocking_pool_state>()) {
  if (opts.max_threads == 0) opts.max_threads = 1;
  state_->opts = std::move(opts);
}

blocking_pool::~blocking_pool() { shutdown(); }

bool blocking_pool::submit(detail::blocking_job&& job) {
  std::unique_lock lock(state_->mutex);
  if (state_->shutting_down) return false;
  // deque::push_back leaves the deque and `job` as they were if it throws.
  state_->queue.push_back(std::move(job));
  if (state_->idle >= state_->queue.size()) {
    // An idle thread is free for it. Signalled after unlocking: a thread
    // woken while the mutex is still held would only block on it and need
    // a second wake-up.
    lock.unlock();
    state_->work_ready.notify_one();
  } else if (state_->threads < state_->opts.max_threads) {
    try {
      state_->spawn_thread_locked();
    } catch (...) {
      // This call needed the thread: it fails alone, and its job goes back
      // to the caller unrun (the lock is still held: it is the last one).
      job = std::move(state_->queue.back());
      state_->queue.pop_back();
      throw;
    }
  }
  // else: every thread is busy and the cap is reached; the job waits in the queue.
  return true;
}

std::vector<blocking_job_info> blocking_pool::shutdown(std::optional<std::chrono::milliseconds> timeout) {
  std::deque<detail::blocking_job> dropped;
  std::vector<blocking_job_info> stuck;
  {
    std::unique_lock lock(state_->mutex);
    if (state_->shutting_down) return stuck;  // done once already
    state_->shutting_down = true;
    dropped.swap(state_->queue);
    state_->work_ready.notify_all();
    const auto all_ended = [&] { return state_->threads == 0; };
    const auto limit = timeout ? timeout : state_->opts.shutdown_timeout;
    if (limit) {
      detail::wait_for_saturated(state_->thread_ended, lock, *limit, all_ended);
    } else {
      state_->thread_ended.wait(lock, all_ended);
    }
    const auto now = std::chrono::steady_clock::now();
    for (const auto* r : state_->running) stuck.push_back({r->name, r->where, now - r->started});
  }
  for (const auto& s : stuck) {
    std::fprintf(stderr, "lanes: blocking job %s (spawned at %s:%u) still running %.1f ms after shutdown began\n",
                 s.name ? s.name : "(unnamed)", s.spawned_at.file_name(), s.spawned_at.line(),
                 std::chrono::duration<double, std::milli>(s.running_for).count());
  }
  return stuck;  // `dropped` is destroyed here, outside the lock: their awaiters see task_cancelled
}

blocking_pool_metrics blocking_pool::metrics() const {
  std::lock_guard lock(state_->mutex);
  blocking_pool_metrics m;
  m.threads = state_->threads;
  m.idle_threads = state_->idle;
  m.running = static_cast<std::uint32_t>(state_->running.size());
  m.queue_depth = state_->queue.size();
  m.jobs_completed = state_->completed;
  m.threads_peak = state_->peak;
  return m;
}

}  // namespace lanes
