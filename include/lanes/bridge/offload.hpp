// offload(f): runs `f` on the compute lane and resumes the calling io task
// on the io lane with f's result, or rethrows f's exception with its type
// intact. The io worker is free while the task waits: its timers and
// other tasks keep running.
//
//   auto digest = co_await lanes::offload(sha256, std::move(body));   // owning: f(args...) runs on copies
//   auto n = co_await lanes::offload([&] { return count(rows); });     // borrowing the task's locals
//
// - offload(pool, f, args...) picks the compute pool; offload(f, args...)
//   uses the one the runtime was built with (lanes::system), else the
//   default pool. offload_blocking(f, args...) is the same for the
//   blocking lane (calls that wait on the OS: files, DNS, a blocking
//   driver).
// - Owning form: f and args are moved into the job, and f(args...) reads
//   nothing of the task. Borrowing (a lambda capturing by reference) is
//   safe too, because of the next rule.
// - Cancellation never frees what running work reads: if the task is
//   cancelled (aborted, its timeout fired, it lost a select, its runtime
//   shuts down) while the work is queued, the work is dropped unrun; once
//   it has started, the task's frame - and a race's next step - waits
//   until it has ended (pending_work.hpp). Meanwhile the work is asked to
//   stop: if f takes a std::stop_token first, f(token, args...), the
//   token reports the request.
// - One allocation per offload (the shared state); no coroutine frame:
//   offload returns an awaiter, so timeout(d, offload(f)) races it in place.
// - Bound the work in flight with a lanes::gate (gate.hpp), which is
//   offload behind a fair semaphore, with load shedding.
#pragma once

#include <coroutine>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>

#include <lanes/blocking/blocking_pool.hpp>
#include <lanes/bridge/detail/bound_work.hpp>
#include <lanes/bridge/detail/offload_link.hpp>
#include <lanes/bridge/detail/offload_state.hpp>
#include <lanes/compute/detail/entry.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/io/detail/pending_work.hpp>
#include <lanes/io/detail/runtime_access.hpp>

namespace lanes {

namespace detail {

// The compute lane of the calling task's runtime (offload_link.hpp), or
// the default pool outside a task.
compute::detail::pool_state& offload_target();
// The blocking pool of the runtime `owner` (created on first use).
blocking_pool& blocking_pool_of(scheduler& owner);

// Where an offload goes.
struct lane_ref {
  compute::detail::pool_state* compute = nullptr;  // or
  blocking_pool* blocking = nullptr;
};

// Hands the state to its lane. Throws what the hand-off throws
// (std::bad_alloc, a thread that cannot start) with the state untouched
// and not queued: the caller then discards it. If the blocking pool is
// shutting down, the state is dropped unrun (its awaiter gets
// task_cancelled).
template <class State>
void submit_to_lane(const lane_ref& lane, State* state, const char* name, source_location where) {
  if (lane.compute != nullptr) {
    compute::detail::inject(*lane.compute, state);  // the injector's push leaves nothing behind if it throws
    return;
  }
  blocking_job job([](void* s) { State::execute(static_cast<State*>(s)); },
                   [](void* s) noexcept { State::discard(static_cast<State*>(s)); }, state, name, where);
  try {
    (void)lane.blocking->submit(std::move(job));  // refused: `job` drops the state as it goes
  } catch (...) {
    job.release();
    throw;
  }
}

// The task's side of one offload: a node of its pending work while the
// work is out (pending_work.hpp).
template <class Work>
class offload_awaiter : private pending_work {
 public:
  using result_type = typename Work::result_type;

  offload_awaiter(lane_ref lane, Work&& work, std::shared_ptr<gate_state> gate = nullptr,
                  semaphore_permit permit = {}) noexcept(std::is_nothrow_move_constructible_v<Work>)
      : pending_work(&offload_awaiter::settle_work),
        lane_(lane),
        work_(std::move(work)),
        gate_(std::move(gate)),
        permit_(std::move(permit)) {}
  offload_awaiter(offload_awaiter&& other) noexcept(std::is_nothrow_move_constructible_v<Work>)  // before it waits only
      : pending_work(&offload_awaiter::settle_work),
        lane_(other.lane_),
        work_(std::move(other.work_)),
        gate_(std::move(other.gate_)),
        permit_(std::move(other.permit_)) {}
  offload_awaiter(const offload_awaiter&) = delete;
  offload_awaiter& operator=(const offload_awaiter&) = delete;
  ~offload_awaiter() {
    if (waiting_on_ != nullptr) waiting_on_->waiter_leave();
    task_header::unlink_pending(*this);
    if (state_ == nullptr) return;
    // Every path of lanes settles the work before the frame goes (the
    // awaiter is then queued-and-dropped or ended). One does not: an
    // exception thrown while a race arms the branches after this one.
    // Then the work is asked to stop and waited for here, on this thread:
    // nothing it reads may be freed under it.
    if (settle_work(*this, nullptr)) {
      if (state_ != nullptr && state_->abandon()) state_->free();
      return;
    }
    while (!state_->ended()) std::this_thread::sleep_for(std::chrono::microseconds(50));
    state_->free();
  }

  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    auto& self = require_current_task("co_await lanes::offload");
    offload_link& link = offload_link_of(*self.owner());  // before the hand-off: may throw the first time
    self.set_resume_point(h);
    // Allocated before anything is moved into it: a bad_alloc leaves the
    // work, the permit and the gate's counts as they were.
    auto* state = new offload_state<Work>(std::move(work_), self.make_waker(), std::move(gate_), std::move(permit_));
    try {
      submit_to_lane(lane_, state, "offload_blocking", source_location::current());
    } catch (...) {
      state->discard_unsubmitted();  // the permit goes back, the gate's count is undone
      throw;
    }
    state_ = state;
    self.link_pending(*this);
    waiting_on_ = &link;
    link.waiter_enter();
    return true;  // a wake that comes before we suspend is held (task_state::notified)
  }
  result_type await_resume() {
    std::exchange(waiting_on_, nullptr)->waiter_leave();
    task_header::unlink_pending(*this);
    return state_->take();
  }

  // A race that this awaiter lost settles it (race.hpp): true when nothing
  // of the work runs any more.
  using pending_work::settle;

 private:
  static bool settle_work(pending_work& node, task_header* arm) noexcept {
    return settle_held(static_cast<offload_awaiter&>(node).state_, arm);
  }

  lane_ref lane_;
  Work work_;
  std::shared_ptr<gate_state> gate_;
  semaphore_permit permit_;
  offload_outcome<result_type>* state_ = nullptr;
  offload_link* waiting_on_ = nullptr;  // counted as an offload waiter there until resumed or destroyed
};

template <class F, class... Args>
using offload_awaiter_for = offload_awaiter<bound_work_for<F, Args...>>;

// The blocking lane of the calling task's runtime; `call` names the
// caller in the error outside a task.
blocking_pool& current_blocking_pool(const char* call);

}  // namespace detail

template <class F, class... Args>
requires detail::is_work_for<std::decay_t<F>, std::decay_t<Args>...>
auto offload(compute::pool& pool, F&& f, Args&&... args) {
  return detail::offload_awaiter_for<F, Args...>(
      detail::lane_ref{&compute::detail::pool_state_of(pool), nullptr},
      detail::bound_work_for<F, Args...>(std::forward<F>(f), std::forward<Args>(args)...));
}

template <class F, class... Args>
requires detail::is_work_for<std::decay_t<F>, std::decay_t<Args>...>
auto offload(F&& f, Args&&... args) {
  return detail::offload_awaiter_for<F, Args...>(
      detail::lane_ref{&detail::offload_target(), nullptr},
      detail::bound_work_for<F, Args...>(std::forward<F>(f), std::forward<Args>(args)...));
}

// On the blocking lane of the calling task's runtime.
template <class F, class... Args>
requires detail::is_work_for<std::decay_t<F>, std::decay_t<Args>...>
auto offload_blocking(F&& f, Args&&... args) {
  return detail::offload_awaiter_for<F, Args...>(
      detail::lane_ref{nullptr, &detail::current_blocking_pool("lanes::offload_blocking")},
      detail::bound_work_for<F, Args...>(std::forward<F>(f), std::forward<Args>(args)...));
}

}  // namespace lanes
