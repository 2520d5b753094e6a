// offload_state: one piece of work handed from an io task to another lane
// (compute or blocking), shared between the side that awaits it (an
// offload awaiter, or a spawn_blocking handle, in the task's frame) and
// the lane thread that runs it. It lives on the heap because work still
// queued when its task is cancelled is dropped by the lane, later, and a
// spawn_blocking handle may be dropped while its job runs.
//
// The phase, and who frees the object:
//   queued  --lane-->     running --lane--> done     the awaiting side frees it
//   queued  --awaiter-->  abandoned                  the lane frees it unrun
//   running --awaiter-->  abandoned                  the lane frees it after running
//                                                    (only a dropped spawn_blocking
//                                                    handle leaves running work)
//   queued  --handle-->   detached                   the lane runs it, then frees it
//   queued  --lane drops it unrun (shutdown)--> done, with task_cancelled
// Every transition is a CAS on `phase_`: exactly one side sees the other's
// mark and frees. The lane moves the waker out before it publishes `done`
// and touches nothing after, so the other side may free as soon as it
// sees `done` (acquire, pairing with the lane's release).
//
// The waker may be replaced while the work runs (arm: a race that lost
// this branch, or a cancelled task, waits for the work to end with a
// waker of its own suspension). The slot is guarded by the LOCKED bit of
// `phase_`, held for the few instructions of a waker move by arm() and by
// publish(); every transition waits while it is set.
//
// A gate's permit is released when the work ends or is dropped - not when
// the awaiter leaves - so the gate bounds work actually running.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <stop_token>
#include <thread>
#include <type_traits>
#include <utility>

#include <lanes/compute/detail/job.hpp>
#include <lanes/detail/cpu_relax.hpp>
#include <lanes/io/detail/task_header.hpp>
#include <lanes/io/errors.hpp>
#include <lanes/sync/semaphore.hpp>

namespace lanes::detail {

// A gate's shared state: the permits and the counters its metrics read.
struct gate_state {
  explicit gate_state(std::size_t permits) : slots(permits), max_in_flight(permits) {}
  semaphore slots;
  const std::size_t max_in_flight;
  std::atomic<std::uint64_t> waiting{0};
  std::atomic<std::uint64_t> in_flight{0};
  std::atomic<std::uint64_t> shed{0};
  std::atomic<std::uint64_t> completed{0};
  std::atomic<std::uint64_t> failed{0};
  std::atomic<std::uint64_t> dropped{0};
  std::atomic<std::uint64_t> wait_ns{0};
  std::atomic<std::uint64_t> run_ns{0};
};

// What settle() found (pending_work.hpp).
enum class offload_settled {
  ended,    // the work has ended: the awaiting side still owns the state
  dropped,  // it was queued and is now dropped: the lane frees the state
  running,  // it still runs (and wakes the armed waker, if any, when it ends)
};

// Everything of the shared state but the work itself, so that a handle can
// name it by result type alone (spawn_blocking's blocking_handle<R>).
template <class R>
class offload_outcome : public compute::detail::job {
 public:
  using result_type = R;
  offload_outcome(const offload_outcome&) = delete;
  offload_outcome& operator=(const offload_outcome&) = delete;

  // --- the awaiting side (the task's thread) ---

  // Stores `w` to be woken when the work ends, replacing a waker stored
  // before. false (and `w` left alone) when the work has ended already.
  bool arm(waker& w) noexcept {
    std::uint8_t s = lock_unless(done);
    if (s == done) return false;
    waker old = std::exchange(waker_, std::move(w));
    phase_.store(s, std::memory_order_release);  // unlocks
    return true;                                 // `old` is dropped here, outside the lock
  }

  // Asks the work to stop (its std::stop_token), drops it if still queued;
  // arms a waker of `arm` if it still runs (pending_work.hpp).
  offload_settled settle(task_header* arm_for) noexcept {
    if (stop_.stop_possible()) stop_.request_stop();
    std::uint8_t s = load_unlocked();
    for (;;) {
      if (s == done) return offload_settled::ended;
      if (s == queued) {
        if (phase_.compare_exchange_weak(s, abandoned, std::memory_order_acq_rel, std::memory_order_acquire)) {
          return offload_settled::dropped;
        }
        s = load_unlocked();
        continue;
      }
      // running
      if (arm_for == nullptr) return offload_settled::running;
      waker w = arm_for->make_waker();
      return arm(w) ? offload_settled::running : offload_settled::ended;
    }
  }

  // The awaiting side goes away: true when the work has ended and the
  // caller must free the state; false when the lane will.
  bool abandon() noexcept { return leave(abandoned); }
  // A spawn_blocking handle goes away unawaited: the job still runs (if it
  // has not yet started, the lane runs it all the same), then the lane
  // frees the state. true: it has ended, the caller frees.
  bool detach() noexcept { return leave(detached); }

  bool ended() const noexcept { return phase_.load(std::memory_order_acquire) == done; }

  // Once ended: the result, or the work's exception.
  R take() {
    if (result_.error) std::rethrow_exception(result_.error);
    return result_.take();
  }

  void free() noexcept { destroy_(this); }

  // The submitting side, when handing the work to its lane threw: the
  // state was never queued. Undoes the gate's count, gives the permit
  // back, frees the state.
  void discard_unsubmitted() noexcept {
    finish_gate(gate_end::never_admitted, {});
    free();
  }

 protected:
  using destroy_fn = void (*)(offload_outcome*) noexcept;
  offload_outcome(run_fn entry, destroy_fn destroy, bool stoppable, waker to_wake, std::shared_ptr<gate_state> gate,
                  semaphore_permit permit) noexcept
      : job(entry),
        destroy_(destroy),
        stop_(stoppable ? std::stop_source() : std::stop_source(std::nostopstate)),
        waker_(std::move(to_wake)),
        gate_(std::move(gate)),
        permit_(std::move(permit)) {
    if (gate_) gate_->in_flight.fetch_add(1, std::memory_order_relaxed);
  }
  ~offload_outcome() = default;

  // --- the lane's side ---

  // Before running: false when the awaiter left while it was queued (the
  // state is then freed, the work dropped unrun).
  bool start() noexcept {
    std::uint8_t s = load_unlocked();
    for (;;) {
      if (s == abandoned) {
        finish_gate(gate_end::dropped, {});
        free();
        return false;
      }
      if (s == detached) return true;  // runs, then publish() frees it
      if (phase_.compare_exchange_weak(s, running, std::memory_order_acq_rel, std::memory_order_acquire)) return true;
      s = load_unlocked();
    }
  }

  // Runs `call` (the work, given the stop token), timing it for a gate.
  template <class Call>
  void run_and_publish(Call&& call) noexcept {
    // Only a gate's metrics want the run time: no clock reads without one.
    const bool timed = gate_ != nullptr;
    const auto started = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    auto bound = [&]() -> R { return call(stop_.get_token()); };
    result_.run(bound);
    finish_gate(result_.error != nullptr ? gate_end::failed : gate_end::completed,
                timed ? std::chrono::steady_clock::now() - started : std::chrono::steady_clock::duration{});
    publish();
  }

  // The lane discards the work unrun (it is shutting down): the awaiting
  // side gets task_cancelled.
  void drop_unrun() noexcept {
    std::uint8_t s = load_unlocked();
    for (;;) {
      if (s == abandoned || s == detached) {
        finish_gate(gate_end::dropped, {});
        free();
        return;
      }
      if (phase_.compare_exchange_weak(s, running, std::memory_order_acq_rel, std::memory_order_acquire)) break;
      s = load_unlocked();
    }
    result_.error = std::make_exception_ptr(task_cancelled());
    finish_gate(gate_end::dropped, {});
    publish();
  }

 private:
  static constexpr std::uint8_t queued = 0;
  static constexpr std::uint8_t running = 1;
  static constexpr std::uint8_t done = 2;
  static constexpr std::uint8_t abandoned = 3;
  static constexpr std::uint8_t detached = 4;
  static constexpr std::uint8_t locked = 8;  // the waker slot is being moved (see the top)

  // The phase once no one holds the slot's lock (a few instructions).
  std::uint8_t load_unlocked() const noexcept {
    for (int spins = 0;; ++spins) {
      const std::uint8_t s = phase_.load(std::memory_order_acquire);
      if ((s & locked) == 0) return s;
      if (spins < 64) {
        cpu_relax();
      } else {
        std::this_thread::yield();  // the holder was preempted
      }
    }
  }
  // Takes the lock, unless the phase is `unless`; returns the phase.
  std::uint8_t lock_unless(std::uint8_t unless) noexcept {
    std::uint8_t s = load_unlocked();
    while (s != unless) {
      if (phase_.compare_exchange_weak(s, s | locked, std::memory_order_acquire, std::memory_order_relaxed)) break;
      s = load_unlocked();
    }
    return s;
  }

  bool leave(std::uint8_t mark) noexcept {
    std::uint8_t s = load_unlocked();
    for (;;) {
      if (s == done) return true;
      const std::uint8_t next = s == queued ? mark : abandoned;
      if (phase_.compare_exchange_weak(s, next, std::memory_order_acq_rel, std::memory_order_acquire)) return false;
      s = load_unlocked();
    }
  }

  void publish() noexcept {
    // From `running` only an awaiting side may still arm; from `abandoned`
    // or `detached` no one waits, and the result is discarded.
    std::uint8_t s = load_unlocked();
    for (;;) {
      if (s != running) {
        free();
        return;
      }
      if (phase_.compare_exchange_weak(s, running | locked, std::memory_order_acquire, std::memory_order_relaxed)) {
        break;
      }
      s = load_unlocked();
    }
    waker w = std::move(waker_);
    phase_.store(done, std::memory_order_release);  // unlocks; the other side may free from here on
    std::move(w).wake();
  }

  enum class gate_end { completed, failed, dropped, never_admitted };
  void finish_gate(gate_end end, std::chrono::steady_clock::duration took) noexcept {
    permit_.release();  // the work is over: the next waiter may start
    if (!gate_) return;
    gate_->in_flight.fetch_sub(1, std::memory_order_relaxed);
    switch (end) {
      case gate_end::never_admitted:
        return;
      case gate_end::dropped:
        gate_->dropped.fetch_add(1, std::memory_order_relaxed);
        return;
      case gate_end::completed:
      case gate_end::failed:
        (end == gate_end::failed ? gate_->failed : gate_->completed).fetch_add(1, std::memory_order_relaxed);
        gate_->run_ns.fetch_add(
            static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(took).count()),
            std::memory_order_relaxed);
        return;
    }
  }

  std::atomic<std::uint8_t> phase_{queued};
  destroy_fn destroy_;
  std::stop_source stop_;  // no shared state unless the work takes a token
  compute::detail::job_result<R> result_;
  waker waker_;                       // guarded by the LOCKED bit
  std::shared_ptr<gate_state> gate_;  // before the permit: the permit refers into it
  semaphore_permit permit_;
};

// The awaiting side's settle (pending_work.hpp) of the state it holds in
// `state`: true when nothing of the work runs any more. Work dropped from
// the queue is the lane's to free from then on: `state` is set to nullptr.
template <class R>
bool settle_held(offload_outcome<R>*& state, task_header* arm) noexcept {
  if (state == nullptr) return true;
  switch (state->settle(arm)) {
    case offload_settled::ended:
      return true;
    case offload_settled::dropped:
      state = nullptr;
      return true;
    case offload_settled::running:
      return false;
  }
  return false;
}

// The shared state with the work in it. `Work` is a bound_work.
template <class Work>
class offload_state final : public offload_outcome<typename Work::result_type> {
  using base = offload_outcome<typename Work::result_type>;

 public:
  offload_state(Work&& work, waker to_wake, std::shared_ptr<gate_state> gate, semaphore_permit permit)
      : base(&offload_state::execute, &offload_state::destroy, Work::stoppable, std::move(to_wake), std::move(gate),
             std::move(permit)),
        work_(std::move(work)) {}

  // The lane's entry points: run it, or drop it unrun (blocking_job's).
  static void execute(compute::detail::job* self) noexcept {
    auto* state = static_cast<offload_state*>(self);
    if (!state->start()) return;
    state->run_and_publish([state](std::stop_token token) { return state->work_(std::move(token)); });
  }
  static void discard(compute::detail::job* self) noexcept { static_cast<offload_state*>(self)->drop_unrun(); }

 private:
  ~offload_state() = default;
  static void destroy(base* self) noexcept { delete static_cast<offload_state*>(self); }
  Work work_;
};

}  // namespace lanes::detail
