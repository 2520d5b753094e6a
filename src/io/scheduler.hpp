// scheduler: the io lane's workers and their run loop, shared by both
// runtime flavors (current-thread is one worker whose loop runs inside
// block_on instead of on its own thread).
//
// A worker's loop, per tick:
//   - every 61 ticks: maintenance (fire due timers if nobody sleeps in the
//     driver), so timers keep firing on a runtime that never goes idle;
//   - every 31 ticks the global queue is checked first, so tasks injected
//     from outside cannot be starved by a local queue that never empties
//     (both intervals are Tokio's, chosen there as primes so the two rarely
//     coincide);
//   - otherwise: local queue, then global queue, then steal (as one of at
//     most half the workers searching), then park.
// After each task the worker runs the task that the previous one woke, or
// the one that awaited it if it finished (the LIFO slot) — at most 3 in a
// row, Tokio's cap against two tasks ping-ponging forever while the queue
// starves. The LIFO slot is an atomic pointer, so an idle worker can steal
// it (still an open issue in Tokio).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <lanes/blocking/blocking_pool.hpp>
#include <lanes/detail/event_count.hpp>
#include <lanes/io/detail/lane_link.hpp>
#include <lanes/io/metrics.hpp>
#include <lanes/io/runtime.hpp>

#include "io/driver.hpp"
#include "io/idle_workers.hpp"
#include "io/inject_queue.hpp"
#include "io/live_tasks.hpp"
#include "io/local_queue.hpp"
#include "io/stall_monitor.hpp"
#include "io/timer_shards.hpp"
#include "io/timer_wheel.hpp"

namespace lanes::detail {

struct io_worker {
  unsigned index = 0;
  local_queue queue;
  std::atomic<task_header*> lifo{nullptr};
  inject_queue pinned;  // spawn_local tasks: run only here, never stolen
  // It sleeps on this (lanes/detail/event_count.hpp): on its futex, or in
  // the driver's epoll_wait as a waiter that blocks elsewhere, which
  // unpark() then wakes through the driver's eventfd.
  event_count wakeups;
  std::thread thread;

  // Counters: written by this worker only, read by metrics snapshots.
  std::atomic<std::uint64_t> polls{0};
  std::atomic<std::uint64_t> steals{0};
  std::atomic<std::uint64_t> parks{0};
  std::atomic<std::uint64_t> busy_ticks{0};  // cycle_clock ticks
  std::atomic<std::uint64_t> longest_poll_ticks{0};
  std::atomic<std::uint64_t> spawned{0};    // tasks spawned from this worker's thread
  std::atomic<std::uint64_t> completed{0};  // tasks completed on it
  poll_slot current;                        // what it runs now, for the stall detector

  // Owned by the worker's thread.
  std::uint64_t clock_ticks = 0;  // its last cycle_clock reading (see run_worker)
  std::uint32_t tick = 0;
  bool searching = false;
  std::minstd_rand rng;
  std::vector<timer_wheel::due_timer> due_timers;
};

// The worker the calling thread is, and its scheduler (nullptr on other
// threads). Here rather than in scheduler.cpp so that own_worker() inlines
// into the wake path (task_header.cpp): every wake asks it.
inline thread_local io_worker* tls_worker = nullptr;
inline thread_local scheduler* tls_scheduler = nullptr;
// The task this thread is polling, or nullptr (read by every wake, to place
// the woken task: task_header.cpp).
inline thread_local task_header* tls_task = nullptr;
// The cooperative budget (Tokio's number): a task may resume ready
// operations this many times per poll before it must yield.
inline constexpr int coop_budget_per_poll = 128;
inline thread_local constinit int tls_coop = coop_budget_per_poll;

struct scheduler_options {
  unsigned workers = 1;
  bool current_thread = false;
  std::string thread_name = "lanes-io";
  unhandled_exception_handler on_unhandled;
  std::chrono::nanoseconds stall_threshold{0};  // 0: no stall detector
  stall_sink on_stall;
  blocking_pool::options blocking;
  // How long shutdown waits for work still running on other lanes for its
  // tasks (offloads, blocking jobs), in all (runtime_builder::shutdown_timeout).
  std::chrono::milliseconds shutdown_timeout{30'000};
  bool uring = false;  // the io backend (io_backend.hpp)
};

class scheduler {
 public:
  explicit scheduler(scheduler_options options);
  ~scheduler();
  scheduler(const scheduler&) = delete;
  scheduler& operator=(const scheduler&) = delete;

  void start_threads();  // multi-thread flavor
  // Stops the workers, cancels every task still alive, frees them.
  void shutdown() noexcept;

  // Puts a task whose state just became SCHEDULED into a run queue: on
  // the calling worker's, `where` it says, or (from any other thread) the
  // global queue.
  void schedule(task_header& task, placement where) noexcept { schedule(task, where, own_worker()); }
  // The same, for a caller that has asked own_worker() already (nullptr:
  // the calling thread is not one of this runtime's workers).
  void schedule(task_header& task, placement where, io_worker* caller) noexcept;
  void spawn(task_header& task) noexcept;
  int worker_index_of_caller(const char* what) const;
  void wait_blocking(task_header& task);
  driver& io_driver() noexcept { return driver_; }
  // Cancels `task` and returns once its frame is destroyed (see runtime_access.hpp).
  void cancel_now(task_header& task) noexcept;

  bool timer_register(timer_entry& entry, std::uint64_t deadline_ns);
  bool timer_cancel(timer_entry& entry) noexcept;

  void report_unhandled(const std::exception_ptr& error, const task_header& task) noexcept;
  runtime_metrics metrics() const;
  unsigned worker_count() const noexcept { return static_cast<unsigned>(workers_.size()); }
  // True on a thread that runs this runtime's tasks: one of its workers, or
  // (current-thread flavor) the thread inside its block_on.
  bool is_own_thread() const noexcept { return own_worker() != nullptr; }
  // The calling thread's worker if it is one of this runtime's, else nullptr.
  io_worker* own_worker() const noexcept { return tls_scheduler == this ? tls_worker : nullptr; }
  // A runtime of one worker: no other worker exists to steal from it or to
  // wake, so its own queues need no locked instructions.
  bool alone() const noexcept { return workers_.size() == 1; }
  // Failed tasks whose join_handle has not yet taken or dropped the result
  // (guarded by the unobserved errors' mutex, see unobserved_errors.hpp).
  task_header*& unobserved_errors() noexcept { return unobserved_head_; }

 private:
  // Returns once no wake from another thread is in flight for `task`, which
  // is COMPLETE (task_header::foreign_wake_begin).
  static void wait_out_foreign_wakes(const task_header& task) noexcept;
  // Shutdown step 4a: settles the work every live task handed out, polling
  // until none runs or `give_up`, then reports the tasks still waiting.
  void wait_for_pending_work(std::chrono::steady_clock::time_point give_up) noexcept;
  // Blocks the calling thread until done() (polled): true; false when
  // `give_up` passed first.
  template <class Done>
  static bool wait_a_while_until(
      Done done, std::chrono::steady_clock::time_point give_up = std::chrono::steady_clock::time_point::max()) noexcept;
  void run_worker(io_worker& w, task_header* until);
  task_header* next_task(io_worker& w) noexcept;
  // The worker's LIFO slot, from its own thread (search() steals it with an exchange).
  task_header* take_lifo(io_worker& w) noexcept;
  task_header* put_lifo(io_worker& w, task_header& task) noexcept;  // returns what was there
  task_header* search(io_worker& w) noexcept;
  task_header* take_from_global(io_worker& w) noexcept;
  void transition_from_searching(io_worker& w) noexcept;
  void run(io_worker& w, task_header* task) noexcept;
  void run_one(io_worker& w, task_header* task) noexcept;
  // Ends a poll that left the task suspended (RUNNING held, its unused
  // spare references given): to idle, or rescheduled if NOTIFIED; if
  // CANCELLED, the frame is destroyed here unless work handed out from it
  // still runs. `SettledNow`: the caller has settled that work this poll.
  // <false> is inlined into run_one: its CAS is on the path of every poll.
  template <bool SettledNow>
  [[gnu::always_inline]] inline void end_poll(task_header& task, std::uint64_t unused, io_worker* w) noexcept;
  // A poll that found the task cancelled before resuming it.
  [[gnu::cold, gnu::noinline]] void end_cancelled_poll(task_header& task, io_worker* w) noexcept;
  // A cancelled task whose poll this thread holds (RUNNING): if no work
  // handed out from its frame still runs, destroys the frame and completes
  // the task (`unused`: spare references taken already) and returns true;
  // else returns false with a waker stored in each running piece of work.
  [[gnu::cold, gnu::noinline]] bool finish_cancelled(task_header& task, std::uint64_t unused, io_worker* w) noexcept;
  // Publishes COMPLETE, wakes the joiner, drops the running reference, the
  // live list's and `spare_refs` unused spare ones (task_header::grant_spare_refs).
  // `poller`: the worker whose poll the task ended in (null otherwise); if
  // nothing else is queued there, the joiner runs next (the LIFO slot).
  void complete(task_header& task, bool remove_from_live, std::uint64_t spare_refs = 0,
                const io_worker* poller = nullptr) noexcept;
  void park(io_worker& w, task_header* until);
  // Before parking: look for work as long as the lane link asks (true:
  // found some).
  bool look_before_park(io_worker& w, task_header* until) noexcept;
  // Sleeps in the driver, whose lock the caller holds and this releases,
  // until the epoch passes `key` or a timer is due; then fires the timers.
  void sleep_in_driver(io_worker& w, event_count::key key);
  // Fires what is due in this worker's shard and in the others: all of
  // them, or (maintenance) those whose hint says something is due and
  // whose lock is free (timer_shards::advance).
  void fire_timers(io_worker& w, bool all_shards);
  void maintenance(io_worker& w);
  void notify_parked() noexcept;
  void unpark(unsigned worker_index) noexcept;
  void nudge_timers() noexcept;

 public:
  blocking_pool& blocking();
  // The link another lane attached (lane_link.hpp), or nullptr.
  lane_link* installed_link() const noexcept { return link_.load(std::memory_order_acquire); }
  lane_link& install_link(std::unique_ptr<lane_link> link) noexcept;

 private:
  bool any_work() const noexcept;
  // What a worker about to park checks last: any queued work, a task
  // pinned to it, or a reason to stop.
  bool work_for(io_worker& w, task_header* until) const noexcept {
    return any_work() || !w.pinned.empty() || stop_requested(until);
  }
  bool stop_requested(task_header* until) const noexcept;
  std::uint64_t tick_of(std::uint64_t ns) const noexcept;
  std::uint64_t ns_of(std::uint64_t tick) const noexcept;

  const bool current_thread_;
  const std::chrono::milliseconds shutdown_timeout_;
  // The stall detector is on: polls publish what they run (io_worker::current).
  // Fixed at construction (stall_monitor_ itself is reset at shutdown while
  // workers still run).
  const bool publish_polls_;
  const std::string thread_name_;
  unhandled_exception_handler handler_;
  std::vector<std::unique_ptr<io_worker>> workers_;
  inject_queue inject_;
  idle_workers idle_workers_;
  driver driver_;
  std::atomic<bool> driver_parked_{false};

  timer_shards timers_;  // one wheel per worker
  const std::uint64_t epoch_ns_;
  task_header* unobserved_head_ = nullptr;

  // Every task not yet complete, for shutdown to cancel.
  live_tasks live_;
  // The calling thread's worker index in this runtime (live_tasks::shared
  // on any other thread).
  int caller_index() const noexcept;
  // Spawns and completions are counted per worker (a plain store: only that
  // thread writes; no atomic read-modify-write on the spawn path) and, from
  // other threads, here; metrics() sums them.
  void count(std::atomic<std::uint64_t> io_worker::*mine, std::atomic<std::uint64_t>& foreign) noexcept;
  std::atomic<std::uint64_t> foreign_spawned_{0};
  std::atomic<std::uint64_t> foreign_completed_{0};
  std::atomic<std::uint64_t> unhandled_{0};

  std::atomic<bool> shutdown_{false};
  std::atomic<bool> closed_{false};  // after shutdown: nothing is queued any more
  std::mutex block_on_mutex_;        // current-thread: one block_on at a time
  blocking_pool::options blocking_options_;
  std::once_flag blocking_once_;
  std::unique_ptr<blocking_pool> blocking_;
  std::atomic<lane_link*> link_{nullptr};  // owned; installed once (install_link)
  // schedule() calls from threads that are not this runtime's workers (a
  // compute thread finishing an offload, a react thread, a plain thread),
  // still inside: see scheduler::schedule.
  std::atomic<std::uint32_t> foreign_schedules_{0};
  std::unique_ptr<stall_monitor> stall_monitor_;  // last: stopped first
};

}  // namespace lanes::detail
