// A small exhaustive interleaving checker (in the spirit of Tokio's loom and
// of CHESS): it runs the library's own lock-free code, instantiated with
// model atomics, under every interleaving of its threads' atomic
// operations, and reports an execution that fails an assertion or ends
// with every unfinished thread blocked (a lost wake-up).
//
// How: each model thread is a real thread, but only one runs at a time.
// Every operation on a model atomic (and a fence) is a scheduling point:
// the thread hands control back, and the checker picks who runs next. The
// choices of one execution form a path; the checker runs the executions
// depth first, replaying a path's prefix and trying the next alternative
// at its last open choice, until none is left. Which futex waiter a
// notify_one wakes is a choice too.
//
// What it checks is sequential consistency: every interleaving, with each
// atomic operation seeing the latest store. It does not model the weaker
// orderings (a relaxed load reading an older value); ThreadSanitizer and
// the proofs written beside the code cover those. `preemption_bound`
// limits how often a thread that could go on is switched away from
// (iterative context bounding): unbounded is exhaustive; a bound of 2 or 3
// finds nearly every bug in practice and keeps larger models fast.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace lanes::model {

// One execution: the thread bodies (over state made fresh for it) and a
// check that runs once every thread has finished.
struct execution {
  std::vector<std::function<void()>> threads;
  std::function<void()> check;
};

struct report {
  std::uint64_t executions = 0;  // interleavings run
  bool complete = false;         // every interleaving within the bound was run
  std::string failure;           // empty when none failed; else what and the path
};

struct options {
  std::uint64_t max_executions = 2'000'000;
  unsigned preemption_bound = std::numeric_limits<unsigned>::max();
};

// Runs `make()`'s executions under every interleaving (within `opts`).
report explore(const std::function<execution()>& make, options opts = {});

// A failed expectation inside a model thread or check: ends the execution.
struct violation : std::runtime_error {
  using std::runtime_error::runtime_error;
};
inline void require(bool condition, const char* what) {
  if (!condition) throw violation(what);
}

namespace detail {
// Scheduling points, called by the model atomics (checker.cpp).
void step();
// Blocks the calling model thread until wake(address) picks it (or
// wake_all), then returns; a scheduling point.
void block_on(const void* address);
void wake_one(const void* address);
void wake_all(const void* address);
}  // namespace detail

// std::atomic's interface, each operation a scheduling point. Memory
// orders are accepted and ignored (sequential consistency).
template <class T>
class atomic {
 public:
  atomic() noexcept = default;
  constexpr atomic(T v) noexcept : value_(v) {}  // NOLINT(google-explicit-constructor): as std::atomic
  atomic(const atomic&) = delete;
  atomic& operator=(const atomic&) = delete;

  T load(std::memory_order = std::memory_order_seq_cst) const {
    detail::step();
    return value_;
  }
  void store(T v, std::memory_order = std::memory_order_seq_cst) {
    detail::step();
    value_ = v;
  }
  T exchange(T v, std::memory_order = std::memory_order_seq_cst) {
    detail::step();
    T old = value_;
    value_ = v;
    return old;
  }
  T fetch_add(T v, std::memory_order = std::memory_order_seq_cst) {
    detail::step();
    T old = value_;
    value_ = static_cast<T>(value_ + v);
    return old;
  }
  T fetch_sub(T v, std::memory_order = std::memory_order_seq_cst) {
    detail::step();
    T old = value_;
    value_ = static_cast<T>(value_ - v);
    return old;
  }
  bool compare_exchange_strong(T& expected, T desired, std::memory_order = std::memory_order_seq_cst,
                               std::memory_order = std::memory_order_seq_cst) {
    detail::step();
    if (value_ == expected) {
      value_ = desired;
      return true;
    }
    expected = value_;
    return false;
  }
  // As std::atomic::wait: returns once the value is not `old`.
  void wait(T old, std::memory_order = std::memory_order_seq_cst) const {
    detail::step();
    while (value_ == old) detail::block_on(this);
  }
  void notify_one() {
    detail::step();
    detail::wake_one(this);
  }
  void notify_all() {
    detail::step();
    detail::wake_all(this);
  }

 private:
  T value_{};
};

// The atomics policy of the library's templates (detail::std_atomics's twin).
struct atomics {
  template <class T>
  using atomic = model::atomic<T>;
  static void seq_cst_fence() { detail::step(); }
};

}  // namespace lanes::model
