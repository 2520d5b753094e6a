// gate: a bounded door into the compute lane. At most `max_in_flight`
// pieces of work run at once; the rest wait, asynchronously and first come
// first served, for a permit - a burst of requests becomes cheap waiting
// tasks and a visible queue length, never an unbounded pile of CPU jobs.
//
//   lanes::gate cpu{pool, 2};
//   auto r = co_await cpu.try_run_for(50ms, evaluate, std::move(batch));   // owning: evaluate(batch)
//   if (!r) co_return reply_503();          // busy: shed, nothing left queued
//   co_return reply(r.value());
//
// - run(f, args...): waits for a permit, then offloads f(args...) (or
//   f(stop_token, args...)); its result or exception. f may borrow the
//   task's locals instead (a lambda capturing by reference), as offload's.
// - try_run_for(d, f, args...) / try_run_until(t, f, args...): the same, or
//   `busy` if no permit came in time - an ordinary result, no exception,
//   and the waiter has left the queue.
// - The permit goes with the work: it is released when f finishes (or is
//   dropped unrun), not when the awaiting task leaves, so a cancelled
//   request cannot let more work run than the gate allows.
// - Cancellation as offload (offload.hpp): a cancelled task's frame waits
//   for work that has started; permits are never leaked.
// - metrics(): in flight, waiting, shed, completed, failed, dropped, and
//   the total time spent waiting for permits and running.
// A gate is shared state behind a shared_ptr: work it admitted keeps it
// alive, so it may be destroyed while work is still running. Tasks still
// waiting for a permit when it is destroyed get gate_closed (thrown at
// their co_await); each copied what it needs before it started waiting.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <lanes/bridge/offload.hpp>
#include <lanes/config_error.hpp>
#include <lanes/io/task.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/result.hpp>

namespace lanes {

// A gate had no permit for the caller before its deadline.
struct busy {};

// The gate was destroyed while the task waited for a permit.
class gate_closed : public std::runtime_error {
 public:
  gate_closed() : std::runtime_error("lanes::gate: destroyed while this task waited for a permit") {}
};

struct gate_metrics {
  std::size_t max_in_flight = 0;
  std::uint64_t in_flight = 0;         // admitted and not finished (queued in the lane or running)
  std::uint64_t waiting = 0;           // tasks waiting for a permit now
  std::uint64_t shed = 0;              // try_run_* calls answered `busy`
  std::uint64_t completed = 0;         // finished with a result
  std::uint64_t failed = 0;            // finished with an exception
  std::uint64_t dropped = 0;           // admitted, then dropped unrun (their task went away first)
  std::chrono::nanoseconds waited{0};  // total time tasks spent waiting for permits
  std::chrono::nanoseconds ran{0};     // total time the work ran
};

class gate {
 public:
  // Work goes to `pool`; 0 permits is a config_error.
  gate(compute::pool& pool, std::size_t max_in_flight)
      : target_{&compute::detail::pool_state_of(pool), nullptr}, state_(make_state(max_in_flight)) {}
  // Work goes where offload(f) sends it from the calling task.
  explicit gate(std::size_t max_in_flight) : state_(make_state(max_in_flight)) {}
  gate(const gate&) = delete;
  gate& operator=(const gate&) = delete;
  // Tasks waiting for a permit get gate_closed; admitted work runs on.
  ~gate() { state_->slots.close(); }

  template <class F, class... Args>
  requires detail::is_work_for<std::decay_t<F>, std::decay_t<Args>...>
      task<typename detail::bound_work_for<F, Args...>::result_type> run(F f, Args... args) {
    // Copied before the first suspension: the gate may be gone after it.
    auto state = state_;
    const detail::lane_ref lane = target();
    waiting_count waiting(*state);
    auto got = co_await state->slots.acquire();
    waiting.done();
    if (!got.has_value()) throw gate_closed();
    co_return co_await detail::offload_awaiter<detail::bound_work_for<F, Args...>>(
        lane, detail::bound_work_for<F, Args...>(std::move(f), std::move(args)...), state, std::move(got.value()));
  }

  template <class F, class... Args>
  requires detail::is_work_for<std::decay_t<F>, std::decay_t<Args>...>
      task<result<typename detail::bound_work_for<F, Args...>::result_type, busy>> try_run_until(
          clock::time_point deadline, F f, Args... args) {
    using work = detail::bound_work_for<F, Args...>;
    using R = typename work::result_type;
    auto state = state_;
    const detail::lane_ref lane = target();
    waiting_count waiting(*state);
    auto got = co_await timeout_until(deadline, state->slots.acquire());
    waiting.done();
    if (!got.has_value()) {
      state->shed.fetch_add(1, std::memory_order_relaxed);
      co_return busy{};
    }
    if (!got.value().has_value()) throw gate_closed();
    detail::offload_awaiter<work> job(lane, work(std::move(f), std::move(args)...), state,
                                      std::move(got.value().value()));
    if constexpr (std::is_void_v<R>) {
      co_await job;
      co_return result<void, busy>();
    } else {
      co_return co_await job;
    }
  }

  template <class Rep, class Period, class F, class... Args>
  auto try_run_for(std::chrono::duration<Rep, Period> d, F f, Args... args) {
    return try_run_until(deadline_after(d), std::move(f), std::move(args)...);
  }

  gate_metrics metrics() const noexcept {
    const auto& s = *state_;
    gate_metrics m;
    m.max_in_flight = s.max_in_flight;
    m.in_flight = s.in_flight.load(std::memory_order_relaxed);
    m.waiting = s.waiting.load(std::memory_order_relaxed);
    m.shed = s.shed.load(std::memory_order_relaxed);
    m.completed = s.completed.load(std::memory_order_relaxed);
    m.failed = s.failed.load(std::memory_order_relaxed);
    m.dropped = s.dropped.load(std::memory_order_relaxed);
    m.waited = std::chrono::nanoseconds(s.wait_ns.load(std::memory_order_relaxed));
    m.ran = std::chrono::nanoseconds(s.run_ns.load(std::memory_order_relaxed));
    return m;
  }
  std::size_t available() const { return state_->slots.available(); }

 private:
  // Counts a task as waiting for a permit, and the time it waits, until
  // done() or until it is destroyed (the task was cancelled meanwhile).
  class waiting_count {
   public:
    explicit waiting_count(detail::gate_state& s) noexcept : s_(&s), since_(clock::now()) {
      s_->waiting.fetch_add(1, std::memory_order_relaxed);
    }
    waiting_count(const waiting_count&) = delete;
    waiting_count& operator=(const waiting_count&) = delete;
    ~waiting_count() { done(); }
    void done() noexcept {
      if (s_ == nullptr) return;
      s_->waiting.fetch_sub(1, std::memory_order_relaxed);
      s_->wait_ns.fetch_add(static_cast<std::uint64_t>(
                                std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - since_).count()),
                            std::memory_order_relaxed);
      s_ = nullptr;
    }

   private:
    detail::gate_state* s_;
    clock::time_point since_;
  };

  static std::shared_ptr<detail::gate_state> make_state(std::size_t max_in_flight) {
    if (max_in_flight == 0) throw config_error("lanes::gate: max_in_flight 0 would admit nothing");
    return std::make_shared<detail::gate_state>(max_in_flight);
  }
  // Read on the calling task's thread, before it waits (offload_target
  // looks at the calling task's runtime).
  detail::lane_ref target() const {
    return target_.compute != nullptr ? target_ : detail::lane_ref{&detail::offload_target(), nullptr};
  }

  detail::lane_ref target_{};
  std::shared_ptr<detail::gate_state> state_;
};

}  // namespace lanes
