// task_harness: the scheduler's task harness - what happens to one task:
// poll it (run_one, end_poll), complete it (complete), cancel it
// (cancel_now, and a cancelled task's end: end_cancelled_poll,
// finish_cancelled). Each is a short sequence of task_state transitions
// (include/lanes/io/detail/task_state.hpp) and what their outcomes ask
// for; the worker loop calls run_one, shutdown and task_group call
// complete and cancel_now. Only the thread that holds a task RUNNING
// touches its frame here.
//
// These are scheduler members, defined here and included by scheduler.cpp
// alone (the "-inl" pattern): one translation unit with the worker loop,
// so that every poll's path inlines; compiled as a file of its own, each
// poll would be a call (measured: docs/benchmarks.md, hot paths).
#pragma once

#include <chrono>
#include <thread>

#include "cycle_clock.hpp"
#include "io/scheduler.hpp"
#include "io/unobserved_errors.hpp"

namespace lanes::detail {

namespace harness_detail {

inline void store_max(std::atomic<std::uint64_t>& target, std::uint64_t value) noexcept {
  if (value > target.load(std::memory_order_relaxed)) target.store(value, std::memory_order_relaxed);
}

}  // namespace harness_detail

template <bool SettledNow>
void scheduler::end_poll(task_header& task, std::uint64_t unused, io_worker* w) noexcept {
  bool settled_now = SettledNow;
  for (;;) {
    switch (task.state().end_poll(unused, settled_now)) {
      case task_state::poll_end::cancelled:
        // Aborted while it ran: stop at this suspension point, once no work
        // handed out from the frame still runs (pending_work.hpp). Settled
        // once per poll; a CANCELLED seen after that stays set, and the
        // wake the settle armed brings the task back.
        settled_now = true;
        if (finish_cancelled(task, unused, w)) return;
        continue;
      case task_state::poll_end::rescheduled:
        schedule(task, placement::back);  // the running reference becomes the queue's
        return;
      case task_state::poll_end::idle:
        return;
      case task_state::poll_end::idle_last_ref:
        task.unref();
        return;
    }
  }
}

bool scheduler::finish_cancelled(task_header& task, std::uint64_t unused, io_worker* w) noexcept {
  if (!task.settle_pending(true)) return false;  // its wakers use the spare references first
  task.cancel_frame();
  complete(task, true, unused + task.take_spare_refs(), w);
  return true;
}

void scheduler::run_one(io_worker& w, task_header* task) noexcept {
  // To RUNNING, and a new suspension generation: wakers made for the last
  // suspension are now stale. The same transition takes the poll's spare
  // references (task_header::grant_spare_refs).
  switch (task->state().start_poll(task_header::spare_refs_per_poll)) {
    case task_state::poll_start::stale:
      // cancel_now() claimed the task while it was queued, and destroys,
      // or has destroyed, it: this entry's reference is all that is left.
      task->unref();
      return;
    case task_state::poll_start::cancel:
      // Aborted while it waited (or a wake after a cancellation deferred
      // by work still running for it): destroy the frame unless such work
      // runs; then the task stays suspended, and that work's end brings it
      // back.
      task->grant_spare_refs();
      end_cancelled_poll(*task, &w);
      return;
    case task_state::poll_start::poll:
      task->grant_spare_refs();
      break;
  }
  {
    const std::uint64_t started = w.clock_ticks;  // see run_worker
    if (publish_polls_) {
      // For the stall detector (see the protocol in stall_monitor.hpp); off
      // by default, and then these six stores are not made (two polls per
      // spawn + await).
      const auto& where = task->spawned_at();
      w.current.name.store(task->name(), std::memory_order_relaxed);
      w.current.file.store(where.file_name(), std::memory_order_relaxed);
      w.current.function.store(where.function_name(), std::memory_order_relaxed);
      w.current.line.store(where.line(), std::memory_order_relaxed);
      w.current.started_ticks.store(started, std::memory_order_release);
    }
    tls_task = task;
    task->resume_point().resume();
    tls_task = nullptr;
    w.clock_ticks = cycle_clock::now();
    const std::uint64_t took = w.clock_ticks - started;
    if (publish_polls_) w.current.started_ticks.store(0, std::memory_order_release);
    w.polls.store(w.polls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // only we write it
    w.busy_ticks.store(w.busy_ticks.load(std::memory_order_relaxed) + took, std::memory_order_relaxed);
    harness_detail::store_max(w.longest_poll_ticks, took);

    if (task->root().done()) {
      task->finish_frame();
      complete(*task, true, task->take_spare_refs(), &w);
      return;
    }
  }
  // Taken before the CAS that ends the poll: after it, another thread may
  // hold RUNNING and the field is its.
  end_poll<false>(*task, task->take_spare_refs(), &w);
}

void scheduler::end_cancelled_poll(task_header& task, io_worker* w) noexcept {
  if (finish_cancelled(task, 0, w)) return;
  end_poll<true>(task, task.take_spare_refs(), w);
}

void scheduler::cancel_now(task_header& task) noexcept {
  for (bool claimed = false; !claimed;) {
    switch (task.state().claim_for_cancel()) {
      case task_state::cancel_claim::complete:
        return;
      case task_state::cancel_claim::running_elsewhere:
        // Polled on another thread (or claimed by another cancel_now): that
        // thread sees CANCELLED when the poll ends and destroys the frame -
        // unless work handed out from it still runs: then it leaves the
        // task suspended, and we claim it rather than wait for a worker to
        // bring it back (this thread may be the worker it would need).
        wait_a_while_until([&] { return !task.state().polled_elsewhere(); });
        break;
      case task_state::cancel_claim::claimed:
        claimed = true;
        break;
    }
  }
  // Work handed out from the frame may still run and read it: ask it to
  // stop, and wait for it here (the caller must not return before the
  // frame is gone).
  wait_a_while_until([&] { return task.settle_pending(false); });
  task.cancel_frame();
  // Called from a frame being destroyed at shutdown too: see step 4 there.
  task.ref();
  complete(task, true);
  wait_out_foreign_wakes(task);
  task.unref();
}

template <class Done>
bool scheduler::wait_a_while_until(Done done, std::chrono::steady_clock::time_point give_up) noexcept {
  // Yields first (a poll on another worker, a wake inside schedule(), end
  // within microseconds), then sleeps in short steps (work on another lane
  // may take milliseconds).
  for (int round = 0; !done(); ++round) {
    if (std::chrono::steady_clock::now() >= give_up) return false;
    if (round < 64) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
  return true;
}

void scheduler::wait_out_foreign_wakes(const task_header& task) noexcept {
  wait_a_while_until([&] { return !task.foreign_wake_in_flight(); });
}

void scheduler::complete(task_header& task, bool remove_from_live, std::uint64_t spare_refs,
                         const io_worker* poller) noexcept {
  // The live list's reference is ours to drop unless the task sits on
  // another worker's own list, which then drops it (live_tasks.hpp).
  const std::uint64_t live_ref = remove_from_live && !live_.unlink(task, caller_index()) ? 0 : 1;
  // A failure is listed before COMPLETE is published, so that a join_handle
  // dropped from now on finds it listed (see unobserved_errors.hpp).
  if (task.error()) list_unobserved_error(task, *this);
  count(&io_worker::completed, foreign_completed_);  // before COMPLETE: a joiner then sees it counted
  const auto told = task.state().complete_now();
  if (told.wake_joiner()) {
    // Nothing else ready on the worker it ended on: the joiner runs next,
    // on the cache that holds the result (cheaper than the queue: S4's
    // spawn + await). With tasks ready, the joiner takes its turn behind
    // them: a task awaiting many handles then finds the next ones finished
    // when it runs, instead of running between every two of them only to
    // suspend again (measured: docs/benchmarks.md, S4).
    const bool next = poller != nullptr && poller->queue.empty();
    task.take_joiner().wake(next ? placement::next : placement::back);
  }
  if (told.notify_blocking()) task.state().notify_blocking_joiner();
  if (told.handle_dropped()) task.report_unobserved_error();
  // The running reference, the live list's and the poll's unused spare
  // ones, in one atomic operation.
  task.unref(1 + live_ref + spare_refs);
}

}  // namespace lanes::detail
