// job: one unit of compute work as the deques and the injector see it - a
// function pointer and nothing else, so that a job can live on the stack
// of the `join` that forked it (no allocation on the fork-join path).
//
// latch: how the thread that forked a job learns that a thief finished it.
// The waiting worker keeps working while it waits, and only when it runs
// out of work does it mark the latch `sleeping` and sleep on its pool's
// idle signal. The setter reads who waits *before* it flips the latch:
// once it is `set`, the waiter may return and destroy the latch (it lives
// on the waiter's stack), so the setter touches only the worker and its
// pool, which outlive every job.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

namespace lanes::compute::detail {

class worker;

struct job {
  using run_fn = void (*)(job*) noexcept;
  explicit job(run_fn f) noexcept : run(f) {}
  run_fn run;
  // The isolate() region it was forked in (0: none), set when it is pushed.
  // A worker that runs it adopts the region while it does.
  std::uintptr_t region = 0;
};

// Wakes `w` from a latch sleep (defined with the worker).
void wake_worker(worker& w) noexcept;

class latch {
 public:
  static constexpr std::uint32_t unset = 0;
  static constexpr std::uint32_t sleeping = 1;  // unset, and the waiter sleeps on its wake word
  static constexpr std::uint32_t set_state = 2;

  explicit latch(worker* waiter) noexcept : waiter_(waiter) {}
  latch(const latch&) = delete;
  latch& operator=(const latch&) = delete;

  bool probe() const noexcept { return state_.load(std::memory_order_acquire) == set_state; }

  // Release: the job's results happen-before the waiter's probe() that sees it.
  void set() noexcept {
    worker* w = waiter_;
    if (state_.exchange(set_state, std::memory_order_acq_rel) == sleeping) wake_worker(*w);
  }

  // The waiter: unset -> sleeping (or already sleeping, after a wake-up
  // for other work); false if it was set meanwhile.
  bool prepare_sleep() noexcept {
    std::uint32_t expected = unset;
    if (state_.compare_exchange_strong(expected, sleeping, std::memory_order_acq_rel, std::memory_order_acquire)) {
      return true;
    }
    return expected == sleeping;
  }

 private:
  std::atomic<std::uint32_t> state_{unset};
  worker* waiter_;
};

// A latch that opens when a count reaches zero (a scope's jobs).
class count_latch {
 public:
  count_latch(worker* waiter, std::size_t initial) noexcept : count_(initial), latch_(waiter) {}
  void add() noexcept { count_.fetch_add(1, std::memory_order_relaxed); }
  void done() noexcept {
    if (count_.fetch_sub(1, std::memory_order_acq_rel) == 1) latch_.set();
  }
  latch& as_latch() noexcept { return latch_; }

 private:
  std::atomic<std::size_t> count_;
  latch latch_;
};

// Where a job's result, or its exception, waits for the joiner.
template <class R>
struct job_result {
  // A reference result is kept as a reference_wrapper (optional<T&> is not a thing).
  using stored = std::conditional_t<std::is_reference_v<R>, std::reference_wrapper<std::remove_reference_t<R>>, R>;
  std::optional<stored> value;
  std::exception_ptr error;
  template <class F>
  void run(F& f) noexcept {
    try {
      value.emplace(f());
    } catch (...) {
      error = std::current_exception();
    }
  }
  R take() {
    if constexpr (std::is_reference_v<R>) {
      return value->get();
    } else {
      return std::move(*value);
    }
  }
};
template <>
struct job_result<void> {
  std::exception_ptr error;
  template <class F>
  void run(F& f) noexcept {
    try {
      f();
    } catch (...) {
      error = std::current_exception();
    }
  }
  void take() {}
};

}  // namespace lanes::compute::detail
