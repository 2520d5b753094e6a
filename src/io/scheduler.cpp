// The io scheduler (scheduler.hpp): construction and shutdown, spawning
// and scheduling, the worker loop (next task, search, park), the driver
// and the timers. What happens to one task - poll, complete, cancel - is
// the task harness (task_harness.hpp); the calls the public headers make
// are runtime_access.cpp.
#include "io/scheduler.hpp"

#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <thread>

#include <lanes/config_error.hpp>

#include "budget/core_reservations.hpp"
#include "cycle_clock.hpp"
#include "io/task_harness.hpp"
#include "io/unobserved_errors.hpp"

namespace lanes::detail {

namespace {

// Tokio's numbers: maintenance every 61 ticks, the global queue first
// every 31 ticks; at most 3 LIFO polls in a row.
constexpr std::uint32_t maintenance_interval = 61;
constexpr std::uint32_t global_queue_interval = 31;
constexpr int max_lifo_polls = 3;
// How long before a far deadline an idle worker in the driver wakes, to
// sleep the rest in a second, short stage (sleep_in_driver): about what a
// CPU woken from a long idle spell takes to run again (measured:
// docs/benchmarks.md, "timers").
constexpr std::uint64_t early_wake_ns = 50'000;
constexpr std::uint64_t max_tick = (std::uint64_t{1} << 60) - 1;
// Timers fired per look when the worker's queue is (nearly) full: enough
// that timers keep coming due behind a queue that never empties.
constexpr std::size_t min_timer_batch = 32;

}  // namespace

// --- construction and shutdown ---------------------------------------------

scheduler::scheduler(scheduler_options options)
    : current_thread_(options.current_thread),
      shutdown_timeout_(options.shutdown_timeout),
      publish_polls_(options.stall_threshold.count() > 0),
      thread_name_(std::move(options.thread_name)),
      handler_(std::move(options.on_unhandled)),

      idle_workers_(options.workers),
      driver_(options.workers > 1, options.uring),
      timers_(options.workers),
      epoch_ns_(monotonic_ns()),
      live_(options.workers) {
  blocking_options_ = std::move(options.blocking);
  workers_.reserve(options.workers);
  std::vector<const poll_slot*> slots;
  for (unsigned i = 0; i < options.workers; ++i) {
    auto w = std::make_unique<io_worker>();
    w->index = i;
    w->rng.seed(i + 1);
    // A batch of due timers is at most about a queue's worth (fire_timers):
    // the list never grows past this in the worker's life.
    w->due_timers.reserve(std::size_t{2} * local_queue::capacity);
    slots.push_back(&w->current);
    workers_.push_back(std::move(w));
  }
  if (options.stall_threshold.count() > 0) {
    stall_monitor_ = std::make_unique<stall_monitor>(options.stall_threshold, std::move(options.on_stall),
                                                     std::move(slots), [this] { nudge_timers(); });
  }
}

scheduler::~scheduler() {
  shutdown();
  delete link_.load(std::memory_order_acquire);  // the workers have stopped: nobody asks it any more
}

lane_link& scheduler::install_link(std::unique_ptr<lane_link> link) noexcept {
  lane_link* expected = nullptr;
  // Release: the link's fields, written before, are seen by installed_link's acquire.
  if (link_.compare_exchange_strong(expected, link.get(), std::memory_order_acq_rel, std::memory_order_acquire)) {
    return *link.release();
  }
  return *expected;  // `link` goes: the first one stays
}

void scheduler::start_threads() {
  for (auto& w : workers_) {
    io_worker* self = w.get();
    w->thread = std::thread([this, self] {
      lane_thread_scope off_react_cores;
      run_worker(*self, nullptr);
    });
    const std::string name = (thread_name_ + "-" + std::to_string(self->index)).substr(0, 15);
    pthread_setname_np(w->thread.native_handle(), name.c_str());
  }
}

void scheduler::shutdown() noexcept {
  if (shutdown_.exchange(true, std::memory_order_acq_rel)) return;
  const auto give_up = std::chrono::steady_clock::now() + shutdown_timeout_;
  stall_monitor_.reset();
  // 1. Stop the workers: each sees shutdown_ before its next task.
  for (unsigned i = 0; i < workers_.size(); ++i) unpark(i);
  driver_.unpark();
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
  // 2. Close the queues: a wake from now on drops its reference instead.
  closed_.store(true, std::memory_order_release);
  inject_.close();
  for (auto& w : workers_) w->pinned.close();
  // 3. Queue entries hold references; drop them (the joins ordered the
  //    workers' writes before these reads, so we may act as every owner).
  for (auto& w : workers_) {
    if (task_header* t = w->lifo.exchange(nullptr, std::memory_order_acquire)) t->unref();
    while (task_header* t = w->queue.pop()) t->unref();
    while (task_header* t = w->pinned.pop()) t->unref();
  }
  while (task_header* t = inject_.pop()) t->unref();
  // 4a. Work handed out from a task's frame to another lane (offloads,
  //    blocking jobs it awaits) may still run and read the frame: ask it
  //    to stop, and wait for it to end, up to the shutdown timeout.
  wait_for_pending_work(give_up);
  // 4. Cancel every task still alive: destroy its frame (its destructors
  //    run here), complete it as cancelled, wake its joiner. A task whose
  //    work still runs after 4a completes as cancelled with its frame left
  //    allocated (reported in 4a): the work reads it. A wake from
  //    another thread that set SCHEDULED before COMPLETE may not have
  //    entered schedule() yet, so step 7 would not wait for it: the task's
  //    count of such wakes is waited out after COMPLETE. A wake that
  //    comes later finds COMPLETE and touches nothing of this scheduler.
  while (task_header* task = live_.any_when_stopped()) {
    live_.unlink_when_stopped(*task);
    task->ref();  // stands in for the running reference complete() drops
    task->ref();  // ours, to read the wake count after complete()
    if (!task->is_complete()) {
      if (task->settle_pending(false)) {
        task->cancel_frame();
      } else {
        task->abandon_frame();
      }
    }
    complete(*task, false);
    wait_out_foreign_wakes(*task);
    task->unref();
  }
  // 4b. Timers still armed now belong to no task's frame: a sleep kept
  //     outside the runtime (made before it, lost a select in block_on).
  //     Unlink them, so that its destructor, once this scheduler is gone,
  //     finds the timer fired rather than reaching in here.
  timers_.release_all();
  // 5. Failures still waiting for their join_handle: report them to stderr
  //    when the handle goes, since this runtime's handler will be gone.
  orphan_unobserved_errors(this);
  // 6. The blocking lane: queued jobs are dropped, running ones waited for
  //    (up to what is left of the shutdown timeout, then reported).
  if (blocking_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(give_up - std::chrono::steady_clock::now());
    blocking_->shutdown(std::max(left, std::chrono::milliseconds(0)));
  }
  // 7. A wake from another thread may still be inside schedule() (see
  //    there) for a task it queued before step 2, which may have run and
  //    completed since (so step 4 did not wait for it): this scheduler's
  //    memory must outlive that call.
  while (foreign_schedules_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
}

void scheduler::wait_for_pending_work(std::chrono::steady_clock::time_point give_up) noexcept {
  const auto all_settled = [this] {
    bool settled = true;
    live_.for_each_when_stopped([&](task_header& t) {
      if (t.has_pending() && !t.settle_pending(false)) settled = false;
    });
    return settled;
  };
  if (wait_a_while_until(all_settled, give_up)) return;
  live_.for_each_when_stopped([](task_header& t) {
    if (!t.has_pending() || t.settle_pending(false)) return;
    const auto& where = t.spawned_at();
    std::fprintf(stderr,
                 "lanes: runtime shutdown: task %s (spawned at %s:%u) still waits for work on another lane "
                 "after the shutdown timeout; the work may read the task's frame, so the frame is left allocated\n",
                 t.name() != nullptr ? t.name() : "(unnamed)", where.file_name(), where.line());
  });
}

// --- scheduling -------------------------------------------------------------

void scheduler::count(std::atomic<std::uint64_t> io_worker::*mine, std::atomic<std::uint64_t>& foreign) noexcept {
  if (io_worker* w = own_worker()) {
    auto& counter = w->*mine;
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  } else {
    foreign.fetch_add(1, std::memory_order_release);
  }
}

void scheduler::spawn(task_header& task) noexcept {
  count(&io_worker::spawned, foreign_spawned_);
  live_.link(task, caller_index());
  if (closed_.load(std::memory_order_acquire)) {
    // Spawned while shutting down (from a destructor): cancelled at once
    // (complete() unlinks it: this thread linked it, so that is immediate).
    task.cancel_frame();
    complete(task, true);
    return;
  }
  schedule(task, placement::back);  // new tasks go to the back, not the LIFO slot
}

int scheduler::caller_index() const noexcept {
  const io_worker* w = own_worker();
  return w != nullptr ? static_cast<int>(w->index) : live_tasks::shared;
}

int scheduler::worker_index_of_caller(const char* what) const {
  const int index = caller_index();
  if (index == live_tasks::shared) {
    throw runtime_misuse(std::string(what) + " called from a thread that is not a worker of this runtime");
  }
  return index;
}

void scheduler::schedule(task_header& task, placement where, io_worker* const w) noexcept {
  // A wake from another thread pushes the task, then wakes a parked worker.
  // Between the two the task can run, complete and let block_on return, and
  // the runtime be destroyed while this call still reads idle_workers_ and the
  // workers' event counts. So such a call is counted from before its push
  // (which orders the increment before the task can run) to its last
  // access, and shutdown() waits for the count to drop to zero.
  struct foreign_call {
    std::atomic<std::uint32_t>* count;
    ~foreign_call() {
      if (count != nullptr) count->fetch_sub(1, std::memory_order_release);
    }
  } guard{w == nullptr ? &foreign_schedules_ : nullptr};
  if (guard.count != nullptr) guard.count->fetch_add(1, std::memory_order_relaxed);
  if (task.home_worker() >= 0) {
    // Pinned (spawn_local): only its home worker may run it.
    io_worker& home = *workers_[static_cast<std::size_t>(task.home_worker())];
    if (!home.pinned.push(&task)) {
      task.unref();  // shutting down
      return;
    }
    if (&home != w) unpark(home.index);
    return;
  }
  if (w != nullptr && !closed_.load(std::memory_order_relaxed)) {
    // The LIFO slot is for a task woken by the running task; wakes from the
    // driver or maintenance (timers, in deadline order) keep their order.
    if (where == placement::back) {
      w->queue.push_back(&task, inject_);
    } else {
      // Woken by the running task: run it next, on this warm cache.
      task_header* previous = put_lifo(*w, task);
      if (previous == nullptr) return;
      w->queue.push_back(previous, inject_);
    }
    if (!alone()) notify_parked();  // a lone worker is the one running: nobody to wake
    return;
  }
  if (!inject_.push(&task)) {
    task.unref();  // the runtime is shutting down: the task will be cancelled
    return;
  }
  notify_parked();
}

void scheduler::notify_parked() noexcept {
  // Called after the push: see the invariant in idle_workers.hpp.
  if (const auto sleeper = idle_workers_.claim_sleeper_for_work()) unpark(*sleeper);
}

blocking_pool& scheduler::blocking() {
  std::call_once(blocking_once_, [this] { blocking_ = std::make_unique<blocking_pool>(blocking_options_); });
  return *blocking_;
}

blocking_pool& blocking_pool_of(scheduler& owner) { return owner.blocking(); }

void scheduler::nudge_timers() noexcept {
  // A worker is stuck in a poll: make sure somebody watches the timers.
  if (!driver_parked_.load(std::memory_order_acquire) && timers_.pending() > 0) {
    notify_parked();
  }
}

void scheduler::unpark(unsigned worker_index) noexcept {
  // A worker in the driver blocks in epoll_wait: its eventfd wakes it (a
  // write before the epoll_wait is not lost).
  if (workers_[worker_index]->wakeups.notify_one().elsewhere) driver_.unpark();
}

// A task that offloaded a short function gets its result back within
// microseconds, but a worker that parked meanwhile takes a futex or epoll
// wake-up to resume it, several times the whole round trip (measured:
// docs/benchmarks.md, S4). So the runtime's lane link (the bridge's, which
// counts the tasks waiting on an offload) says how long a worker out of
// work keeps looking before it parks. Bounded, and 0 without a link or
// with nothing offloaded: then the worker parks at once.
bool scheduler::look_before_park(io_worker& w, task_header* until) noexcept {
  const lane_link* link = link_.load(std::memory_order_acquire);
  if (link == nullptr) return false;
  const std::uint64_t look_ns = link->look_before_park_ns();
  if (look_ns == 0) return false;
  const std::uint64_t give_up = monotonic_ns() + look_ns;
  do {
    for (int i = 0; i < 4; ++i) cpu_relax();  // a few pauses between looks
    if (work_for(w, until)) return true;
  } while (monotonic_ns() < give_up);
  return false;
}

bool scheduler::any_work() const noexcept {
  if (!inject_.empty()) return true;
  return std::any_of(workers_.begin(), workers_.end(), [](const auto& w) {
    return !w->queue.empty() || w->lifo.load(std::memory_order_acquire) != nullptr;
  });
}

bool scheduler::stop_requested(task_header* until) const noexcept {
  if (shutdown_.load(std::memory_order_acquire)) return true;
  return until != nullptr && until->is_complete();
}

// --- the worker loop --------------------------------------------------------

void scheduler::run_worker(io_worker& w, task_header* until) {
  io_worker* const outer_worker = tls_worker;
  scheduler* const outer_scheduler = tls_scheduler;
  tls_worker = &w;
  tls_scheduler = this;
  // A poll's start time is the end of the poll before it when the worker
  // went straight from one to the next (run_one reads the clock once per
  // poll: a clock read is not free in a virtual machine, and there are two
  // polls per spawn + await); after anything else (maintenance, a search, spinning,
  // parking) it is read afresh. So busy time and the longest poll include
  // the few instructions of scheduling between two back-to-back polls.
  bool clock_fresh = false;
  while (!stop_requested(until)) {
    ++w.tick;
    if (w.tick % maintenance_interval == 0) {
      maintenance(w);
      clock_fresh = false;
    }
    task_header* task = next_task(w);
    if (task == nullptr) {
      task = search(w);
      clock_fresh = false;
    }
    if (task != nullptr) {
      // Found work, from wherever: not searching any more. A worker woken
      // for work is counted as searching; were one that found its task in
      // its own queues to stay counted while it ran them, with the count at
      // its cap (half the workers) the others could neither search nor be
      // woken, and an idle one would spin through park() seeing work it was
      // not allowed to steal.
      if (w.searching) transition_from_searching(w);
      if (!clock_fresh) w.clock_ticks = cycle_clock::now();
      run(w, task);
      clock_fresh = true;
      continue;
    }
    clock_fresh = false;
    if (look_before_park(w, until)) continue;
    park(w, until);
  }
  if (w.searching) transition_from_searching(w);
  tls_worker = outer_worker;
  tls_scheduler = outer_scheduler;
}

// Exchanges are locked instructions, and the slot is looked at after every
// poll: look with a load first (it is usually empty), and use plain loads
// and stores where no other worker exists to steal from it.
task_header* scheduler::take_lifo(io_worker& w) noexcept {
  task_header* t = w.lifo.load(std::memory_order_relaxed);
  if (t == nullptr) return nullptr;
  if (alone()) {
    w.lifo.store(nullptr, std::memory_order_relaxed);
    return t;
  }
  return w.lifo.exchange(nullptr, std::memory_order_acq_rel);
}

task_header* scheduler::put_lifo(io_worker& w, task_header& task) noexcept {
  if (alone()) {
    task_header* previous = w.lifo.load(std::memory_order_relaxed);
    w.lifo.store(&task, std::memory_order_relaxed);
    return previous;
  }
  return w.lifo.exchange(&task, std::memory_order_acq_rel);
}

task_header* scheduler::next_task(io_worker& w) noexcept {
  // The global queue's turn takes a batch, not one task: a worker whose
  // local queue overflowed there (more runnable tasks than it holds, as
  // with hundreds of busy connections) gets them back before the tasks its
  // local queue keeps receiving, instead of one per interval.
  if (w.tick % global_queue_interval == 0) {
    if (task_header* t = take_from_global(w)) return t;
  }
  if (task_header* t = take_lifo(w)) return t;
  if (task_header* t = w.pinned.pop()) return t;
  if (task_header* t = alone() ? w.queue.pop_unshared() : w.queue.pop()) {
    w.queue.prefetch_front();
    return t;
  }
  return take_from_global(w);
}

// Tokio's batch from the global queue: a worker whose own queue ran dry
// moves its share of the global queue into it (at most half its capacity)
// under one lock, instead of one lock per task. The share keeps one worker
// from taking everything while the others look (S3's spawned tasks
// overflow to the global queue).
task_header* scheduler::take_from_global(io_worker& w) noexcept {
  if (inject_.empty()) return nullptr;
  const std::size_t share = inject_.size() / workers_.size() + 1;
  const std::size_t room = std::min<std::size_t>(w.queue.room(), local_queue::capacity / 2);
  std::size_t count = 0;
  task_header* first = inject_.pop_chain(std::max<std::size_t>(1, std::min(share, room + 1)), count);
  if (count > 1) w.queue.push_chain(first->queued_next(), static_cast<std::uint32_t>(count - 1));
  return first;
}

task_header* scheduler::search(io_worker& w) noexcept {
  task_header* found = nullptr;
  const auto n = static_cast<unsigned>(workers_.size());
  if (n > 1) {
    if (!w.searching) {
      if (!idle_workers_.try_start_searching()) return nullptr;
      w.searching = true;
    }
    const unsigned start = static_cast<unsigned>(w.rng()) % n;
    for (unsigned i = 0; i < n && found == nullptr; ++i) {
      io_worker& victim = *workers_[(start + i) % n];
      if (&victim == &w) continue;
      found = victim.queue.steal_into(w.queue);
      if (found == nullptr) found = victim.lifo.exchange(nullptr, std::memory_order_acq_rel);
      if (found != nullptr) w.steals.fetch_add(1, std::memory_order_relaxed);
    }
  }
  if (found == nullptr) found = take_from_global(w);
  return found;
}

void scheduler::transition_from_searching(io_worker& w) noexcept {
  w.searching = false;
  // The last searcher found work: there may be more, keep someone looking.
  if (idle_workers_.stop_searching()) notify_parked();
}

void scheduler::run(io_worker& w, task_header* task) noexcept {
  tls_coop = coop_budget_per_poll;
  run_one(w, task);
  // The LIFO polls share the budget with the task that woke them (Tokio's
  // fix: a ping-pong pair cannot reset its budget by waking each other).
  for (int lifo_polls = 0;;) {
    task_header* next = take_lifo(w);
    if (next == nullptr) break;
    if (++lifo_polls > max_lifo_polls || shutdown_.load(std::memory_order_relaxed)) {
      w.queue.push_back(next, inject_);
      notify_parked();
      break;
    }
    run_one(w, next);
  }
}

// --- parking ------------------------------------------------------------------

void scheduler::park(io_worker& w, task_header* until) {
  live_.collect(static_cast<int>(w.index));  // headers of our tasks others completed: free them before sleeping
  // Where to sleep: in the driver (watching the timers and file
  // descriptors for everyone) if no other worker is there, else on this
  // worker's futex. Chosen before the wait is prepared: a waiter in the
  // driver is one that blocks elsewhere (event_count.hpp).
  const bool in_driver = driver_.lock().try_lock();
  const auto key =
      w.wakeups.prepare_wait(in_driver ? event_count::wait_site::elsewhere : event_count::wait_site::futex);
  idle_workers_.add_sleeper(w.index);
  if (w.searching) {
    w.searching = false;
    idle_workers_.stop_searching();
  }
  // Look once more after announcing ourselves: the look of the event
  // count's protocol, and of idle_workers.hpp's invariant (the fence is its
  // worker-side one, a no-op in the seq_cst form). Pinned tasks are
  // announced to their home worker alone, by unpark.
  dekker_fence();
  if (work_for(w, until)) {
    w.wakeups.cancel_wait(key);
    if (in_driver) driver_.lock().unlock();
    if (!idle_workers_.remove_sleeper(w.index)) w.searching = true;  // someone claimed us for work meanwhile
    return;
  }
  w.parks.fetch_add(1, std::memory_order_relaxed);
  if (in_driver) {
    sleep_in_driver(w, key);
  } else {
    w.wakeups.wait(key);
  }
  if (!idle_workers_.remove_sleeper(w.index)) w.searching = true;  // woken on purpose: counted as searching
  // Hand the driver on: this worker is about to run tasks, and a worker
  // sleeping on its futex would otherwise not watch the timers. Only after
  // this worker has left the sleepers: otherwise it could pick itself, and
  // spin through park/unpark until the next deadline.
  if (in_driver && (timers_.pending() > 0 || driver_.fd_count() > 0) && idle_workers_.sleepers() > 0) {
    notify_parked();
  }
}

void scheduler::sleep_in_driver(io_worker& w, event_count::key key) {
  if (!w.wakeups.ready(key)) {
    // "Parked, no deadline yet" goes out before the shards are read: a
    // timer inserted into a shard after it was read then finds this (or
    // the deadline below) in timer_register and wakes the driver if it is
    // earlier. The shards' locks order the two (timer_shards.hpp).
    driver_.announce_parked_deadline(UINT64_MAX);
    const auto next = timers_.next_deadline();
    std::uint64_t wake_ns = next ? ns_of(*next) : 0;
    // A far deadline is slept to in two stages: early_wake_ns before it,
    // then the rest. Waking a CPU that has been idle a while takes tens of
    // microseconds; the first stage pays that before the deadline instead
    // of after it. Costs one more timerfd arm and epoll wait per deadline,
    // on an idle worker.
    if (next) {
      const std::uint64_t now = monotonic_ns();
      if (wake_ns > now + 2 * early_wake_ns) wake_ns -= early_wake_ns;
      driver_.announce_parked_deadline(wake_ns);
    }
    driver_parked_.store(true, std::memory_order_release);
    driver_.park(wake_ns, true);
    driver_parked_.store(false, std::memory_order_release);
    driver_.announce_parked_deadline(0);
  }
  w.wakeups.finish_wait(key);
  fire_timers(w, true);  // the driver's worker fires for everyone
  driver_.lock().unlock();
}

void scheduler::maintenance(io_worker& w) {
  live_.collect(static_cast<int>(w.index));
  // Completions this worker's io_uring operations wait to finish on it (uring.hpp).
  driver_.fds()->run_ring_work();
  // The worker parked in the driver fires timers and reports fd events itself.
  if (driver_parked_.load(std::memory_order_acquire)) return;
  // Every worker busy: look at the fds now and then without sleeping,
  // taking no more events than this worker's queue has room for. Events
  // left in epoll keep their order there; tasks woken past the queue's
  // room would overflow to the global queue and wait behind the tasks
  // this worker keeps receiving (hundreds of busy connections on one worker).
  const auto room = static_cast<int>(std::min<std::uint32_t>(w.queue.room(), driver::max_events_per_park));
  if (room > 0 && driver_.fd_count() > 0 && driver_.lock().try_lock()) {
    driver_.park(0, false, room);
    driver_.lock().unlock();
  }
  if (timers_.pending() == 0) return;
  fire_timers(w, false);
}

// --- timers -----------------------------------------------------------------

std::uint64_t scheduler::tick_of(std::uint64_t ns) const noexcept {
  return ns <= epoch_ns_ ? 0 : std::min((ns - epoch_ns_) / 1000, max_tick);
}

std::uint64_t scheduler::ns_of(std::uint64_t tick) const noexcept { return epoch_ns_ + tick * 1000; }

void scheduler::fire_timers(io_worker& w, bool all_shards) {
  std::vector<timer_wheel::due_timer>& due = w.due_timers;  // reused: no allocation per firing
  const std::uint64_t now = tick_of(monotonic_ns());
  // As many as the worker's queue has room for (at least a few, so that
  // timers advance when it is full): the rest stay due in the wheel, for
  // the next maintenance (timer_wheel::advance says why).
  const std::size_t batch = std::max<std::size_t>(w.queue.room(), min_timer_batch);
  timers_.advance(now, w.index, all_shards, due, batch);
  // Each wake's first touch of its task is a cache miss when the timers
  // were set long ago (S3's sleepers): start the loads a few wakes ahead.
  constexpr std::size_t ahead = 6;
  for (std::size_t i = 0; i < due.size(); ++i) {
    if (i + ahead < due.size()) due[i + ahead].to_wake.prefetch();
    std::move(due[i].to_wake).wake();
  }
  due.clear();
}

bool scheduler::timer_register(timer_entry& entry, std::uint64_t deadline_ns) {
  // Round up: a timer never fires before its deadline.
  entry.deadline_tick = deadline_ns <= epoch_ns_ ? 0 : std::min((deadline_ns - epoch_ns_ + 999) / 1000, max_tick);
  // Its own shard for a worker; a thread that is not one (none of lanes'
  // awaitables registers from there) shares shard 0.
  const int index = caller_index();
  if (!timers_.insert(index == live_tasks::shared ? 0 : static_cast<unsigned>(index), entry)) return false;
  // Read after the shard's lock was taken: see sleep(). The worker in the
  // driver sleeps past this deadline (or has not settled on one): wake it.
  const std::uint64_t parked_until = driver_.parked_deadline();
  if (parked_until != 0 && deadline_ns < parked_until) driver_.unpark();
  return true;
}

bool scheduler::timer_cancel(timer_entry& entry) noexcept { return timers_.cancel(entry); }

// --- block_on -----------------------------------------------------------------

void scheduler::wait_blocking(task_header& task) {
  if (current_thread_) {
    std::unique_lock lock(block_on_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      throw runtime_misuse(
          "lanes: block_on on a current-thread runtime that another thread is already driving: "
          "spawn the task instead, or use a multi-thread runtime");
    }
    run_worker(*workers_[0], &task);
    return;
  }
  task.state().wait_until_complete();
}

// --- errors ----------------------------------------------------------------------

void scheduler::report_unhandled(const std::exception_ptr& error, const task_header& task) noexcept {
  unhandled_.fetch_add(1, std::memory_order_relaxed);
  const task_info info{task.name(), task.spawned_at()};
  if (handler_) {
    try {
      handler_(error, info);
      return;
    } catch (...) {
      std::fputs("lanes: the unhandled-exception handler itself threw; reporting to stderr\n", stderr);
    }
  }
  print_unhandled(error, info);
}

runtime_metrics scheduler::metrics() const {
  runtime_metrics m;
  m.workers = worker_count();
  for (const auto& w : workers_) {
    worker_metrics wm;
    wm.polls = w->polls.load(std::memory_order_relaxed);
    wm.steals = w->steals.load(std::memory_order_relaxed);
    wm.parks = w->parks.load(std::memory_order_relaxed);
    wm.busy_ns = cycle_clock::to_ns(w->busy_ticks.load(std::memory_order_relaxed));
    wm.longest_poll_ns = cycle_clock::to_ns(w->longest_poll_ticks.load(std::memory_order_relaxed));
    wm.local_queue_depth = w->queue.size();
    m.per_worker.push_back(wm);
  }
  m.global_queue_depth = inject_.size();
  // Completions first: a completion counted here happened after its spawn,
  // which the acquire loads below then see too - so alive never goes negative.
  std::uint64_t completed = foreign_completed_.load(std::memory_order_acquire);
  for (const auto& w : workers_) completed += w->completed.load(std::memory_order_acquire);
  std::uint64_t spawned = foreign_spawned_.load(std::memory_order_acquire);
  for (const auto& w : workers_) spawned += w->spawned.load(std::memory_order_acquire);
  m.tasks_spawned = spawned;
  m.tasks_alive = spawned >= completed ? spawned - completed : 0;
  m.timers_pending = timers_.pending();
  m.unhandled_exceptions = unhandled_.load(std::memory_order_relaxed);
  m.stalls_detected = stall_monitor_ ? stall_monitor_->stalls() : 0;
  if (blocking_) m.blocking = blocking_->metrics();
  m.frame_memory = frame_memory();
  return m;
}

}  // namespace lanes::detail
