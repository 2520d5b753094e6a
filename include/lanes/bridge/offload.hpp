// offload(f): runs `f` on the compute lane and resumes the calling io task
// on the io lane with f's result, or rethrows f's exception with its type
// intact. The io worker is free while the task waits: its timers and
// other tasks keep running.
//
//   auto digest = co_await lanes::offload([&] { return sha256(body); });
//
// - offload(pool, f) picks the compute pool; offload(f) uses the one the
//   runtime was built with (lanes::system), else the default pool.
// - offload_blocking(f) is the same for the blocking lane (calls that wait
//   on the OS: files, DNS, a blocking driver).
// - Cancellation: if the task is aborted (or its timeout fires) while the
//   work is queued, the work is dropped unrun; once it has started it runs
//   to completion and its result is discarded. See offload_state.hpp.
// - One allocation per offload (the shared state); no coroutine frame:
//   offload returns an awaiter, so timeout(d, offload(f)) races it in place.
// - Bound the work in flight with a lanes::gate (gate.hpp), which is
//   offload behind a fair semaphore, with load shedding.
#pragma once

#include <coroutine>
#include <memory>
#include <type_traits>
#include <utility>

#include <lanes/blocking/blocking_pool.hpp>
#include <lanes/blocking/spawn_blocking.hpp>
#include <lanes/bridge/detail/offload_state.hpp>
#include <lanes/compute/detail/entry.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/io/detail/runtime_access.hpp>

namespace lanes {

namespace detail {

// The compute lane the calling task's runtime was given (lanes::system), or nullptr.
compute::detail::registry* attached_compute(scheduler& s) noexcept;
// The same, falling back to the default pool.
compute::detail::registry& offload_target();

// Where an offload goes.
struct lane_ref {
  compute::detail::registry* compute = nullptr;  // or
  blocking_pool* blocking = nullptr;
};

// Hands the state to its lane. For the blocking lane the state rides in a
// blocking_job that drops it (task_cancelled) if the pool discards the job
// unrun at shutdown.
template <class State>
void submit_to_lane(const lane_ref& lane, State* state) {
  if (lane.compute != nullptr) {
    compute::detail::inject(*lane.compute, state);
    return;
  }
  struct runs_once {
    State* state;
    explicit runs_once(State* s) noexcept : state(s) {}
    runs_once(runs_once&& other) noexcept : state(std::exchange(other.state, nullptr)) {}
    runs_once(const runs_once&) = delete;
    runs_once& operator=(const runs_once&) = delete;
    runs_once& operator=(runs_once&&) = delete;
    ~runs_once() {
      if (state != nullptr) state->drop_unrun();
    }
    void operator()() { std::exchange(state, nullptr)->run(); }
  };
  // If the pool refuses it (shutting down), runs_once is destroyed unrun
  // and the awaiter gets task_cancelled.
  (void)lane.blocking->submit(blocking_job(runs_once(state), "offload_blocking", source_location::current()));
}

template <class F>
class offload_awaiter {
 public:
  using result_type = std::invoke_result_t<F&>;

  offload_awaiter(lane_ref lane, F f, std::shared_ptr<gate_state> gate = nullptr, semaphore_permit permit = {})
      : lane_(lane), f_(std::move(f)), gate_(std::move(gate)), permit_(std::move(permit)) {}
  offload_awaiter(offload_awaiter&& other) noexcept(std::is_nothrow_move_constructible_v<F>)  // before it waits only
      : lane_(other.lane_), f_(std::move(other.f_)), gate_(std::move(other.gate_)), permit_(std::move(other.permit_)) {}
  offload_awaiter(const offload_awaiter&) = delete;
  offload_awaiter& operator=(const offload_awaiter&) = delete;
  ~offload_awaiter() {
    if (waiting_on_ != nullptr) offload_waiter_leave(*waiting_on_);
    if (state_ != nullptr && state_->abandon()) delete state_;
  }

  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    auto& self = require_current_task("co_await lanes::offload");
    self.set_resume_point(h);
    state_ = new offload_state<F>(std::move(f_), self.make_waker(), std::move(gate_), std::move(permit_));
    waiting_on_ = self.owner();
    offload_waiter_enter(*waiting_on_);
    submit_to_lane(lane_, state_);
    return true;  // a wake that comes before we suspend is held (task_state::notified)
  }
  result_type await_resume() {
    offload_waiter_leave(*std::exchange(waiting_on_, nullptr));
    return state_->take();
  }

 private:
  lane_ref lane_;
  F f_;
  std::shared_ptr<gate_state> gate_;
  semaphore_permit permit_;
  offload_state<F>* state_ = nullptr;
  scheduler* waiting_on_ = nullptr;  // counted as an offload waiter there until resumed or destroyed
};

}  // namespace detail

template <class F>
auto offload(compute::pool& pool, F&& f) {
  return detail::offload_awaiter<std::decay_t<F>>(detail::lane_ref{&compute::detail::registry_of(pool), nullptr},
                                                  std::forward<F>(f));
}

template <class F>
auto offload(F&& f) {
  return detail::offload_awaiter<std::decay_t<F>>(detail::lane_ref{&detail::offload_target(), nullptr},
                                                  std::forward<F>(f));
}

// On the blocking lane of the calling task's runtime.
template <class F>
auto offload_blocking(F&& f) {
  detail::scheduler* s = detail::current_scheduler();
  if (s == nullptr)
    throw runtime_misuse("lanes::offload_blocking called outside an io task: use a blocking_pool directly");
  return detail::offload_awaiter<std::decay_t<F>>(detail::lane_ref{nullptr, &detail::blocking_pool_of(*s)},
                                                  std::forward<F>(f));
}

}  // namespace lanes
