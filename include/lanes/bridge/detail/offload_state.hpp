// offload_state: one piece of work handed from an io task to another lane
// (compute or blocking), shared between the task's awaiter and the lane
// thread that runs it. It lives on the heap because either side may be
// gone first: the task can be cancelled while the work waits in the lane,
// and the lane finishes work whose task no longer waits.
//
// The state, and who frees the object:
//   queued --lane--> running --lane--> done        the awaiter frees it
//   queued --awaiter--> abandoned                  the lane frees it unrun
//   running --awaiter--> abandoned                 the lane frees it after
//                                                  running (result dropped)
// Every transition is a CAS or an exchange on `state_`: exactly one side
// sees the other's mark and frees. The lane moves the waker out before it
// publishes `done`, so it never touches the object after the awaiter may
// have freed it. A gate's permit is released when the work ends or is
// dropped - not when the awaiter leaves - so the gate bounds work actually
// running.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

#include <lanes/compute/detail/job.hpp>
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

template <class F>
class offload_state final : public compute::detail::job {
 public:
  using result_type = std::invoke_result_t<F&>;

  offload_state(F&& f, waker to_wake, std::shared_ptr<gate_state> gate, semaphore_permit permit)
      : job(&offload_state::execute),
        f_(std::move(f)),
        to_wake_(std::move(to_wake)),
        gate_(std::move(gate)),
        permit_(std::move(permit)) {
    if (gate_) gate_->in_flight.fetch_add(1, std::memory_order_relaxed);
  }

  // The lane's side: runs f, unless the awaiter left while it was queued.
  void run() noexcept {
    std::uint8_t expected = queued;
    if (!state_.compare_exchange_strong(expected, running, std::memory_order_acq_rel)) {
      finish_gate(/*ran=*/false, false, {});
      delete this;  // abandoned while queued: dropped unrun
      return;
    }
    // Only a gate's metrics want the run time: no clock reads without one.
    const bool timed = gate_ != nullptr;
    const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    result_.run(f_);
    finish_gate(true, result_.error != nullptr,
                timed ? std::chrono::steady_clock::now() - start : std::chrono::steady_clock::duration{});
    publish();
  }

  // The lane dropped the work unrun (it is shutting down): the awaiter
  // gets task_cancelled.
  void drop_unrun() noexcept {
    std::uint8_t expected = queued;
    if (!state_.compare_exchange_strong(expected, running, std::memory_order_acq_rel)) {
      finish_gate(false, false, {});
      delete this;
      return;
    }
    result_.error = std::make_exception_ptr(task_cancelled());
    finish_gate(false, false, {});
    publish();
  }

  // The awaiter's side when it goes away: true when the work is done and
  // the awaiter must free it; false when the lane will.
  bool abandon() noexcept {
    std::uint8_t s = state_.load(std::memory_order_acquire);
    while (s == queued || s == running) {
      if (state_.compare_exchange_weak(s, abandoned, std::memory_order_acq_rel, std::memory_order_acquire)) {
        return false;
      }
    }
    return true;
  }

  // The awaiter, once woken: the result or the job's exception.
  result_type take() {
    if (result_.error) std::rethrow_exception(result_.error);
    return result_.take();
  }

 private:
  static constexpr std::uint8_t queued = 0;
  static constexpr std::uint8_t running = 1;
  static constexpr std::uint8_t done = 2;
  static constexpr std::uint8_t abandoned = 3;

  static void execute(compute::detail::job* self) noexcept { static_cast<offload_state*>(self)->run(); }

  void finish_gate(bool ran, bool failed, std::chrono::steady_clock::duration took) noexcept {
    permit_.release();  // the work is over: the next waiter may start
    if (!gate_) return;
    gate_->in_flight.fetch_sub(1, std::memory_order_relaxed);
    if (!ran) {
      gate_->dropped.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    (failed ? gate_->failed : gate_->completed).fetch_add(1, std::memory_order_relaxed);
    gate_->run_ns.fetch_add(
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(took).count()),
        std::memory_order_relaxed);
  }

  void publish() noexcept {
    waker w = std::move(to_wake_);
    if (state_.exchange(done, std::memory_order_acq_rel) == abandoned) {
      delete this;  // no one waits: the result is discarded
      return;
    }
    std::move(w).wake();
  }

  std::atomic<std::uint8_t> state_{queued};
  F f_;
  compute::detail::job_result<result_type> result_;
  waker to_wake_;
  std::shared_ptr<gate_state> gate_;  // before the permit: the permit refers into it
  semaphore_permit permit_;
};

}  // namespace lanes::detail
