// join(a, b): runs a and b, possibly in parallel, and returns both results.
//
//   auto [left, right] = lanes::compute::join([&] { return sum(lo); }, [&] { return sum(hi); });
//
// The calling worker pushes b on its deque (a job on this stack frame: no
// allocation), runs a, then takes b back and runs it itself unless a thief
// took it meanwhile; then it keeps working on other jobs until the thief is
// done. Results: a pair, where a `void` side is std::monostate; if both
// are void, join returns void.
//
// Exceptions: if either side throws, the other still runs to completion
// (it may borrow the same stack), then the first exception - a's if both
// threw - is rethrown with its type intact.
//
// From a thread outside any pool, join runs inside the default pool and
// blocks the caller until done (install).
#pragma once

#include <exception>
#include <type_traits>
#include <utility>
#include <variant>

#include <lanes/compute/detail/entry.hpp>
#include <lanes/compute/detail/job.hpp>
#include <lanes/compute/detail/worker.hpp>

namespace lanes::compute {

namespace detail {

template <class R>
using joined_t = std::conditional_t<std::is_void_v<R>, std::monostate, R>;

// b's half of a join: lives on the joining frame. `stolen` tells b whether
// it runs on another thread (adaptive splitting splits more when it does).
template <class F>
class join_job : public job {
 public:
  using result_type = std::invoke_result_t<F&, bool>;
  join_job(F& f, worker* owner) noexcept : job(&join_job::execute), f_(f), done_(owner) {}

  // job_result::run catches everything f_ throws (it is kept for the joiner).
  void run_inline() noexcept {  // NOLINT(bugprone-exception-escape)
    auto call = [this]() -> decltype(auto) { return f_(false); };
    result_.run(call);
  }
  latch& done() noexcept { return done_; }
  job_result<result_type>& result() noexcept { return result_; }

 private:
  static void execute(job* self) noexcept {  // NOLINT(bugprone-exception-escape): as run_inline
    auto* j = static_cast<join_job*>(self);
    auto call = [j]() -> decltype(auto) { return j->f_(true); };
    j->result_.run(call);
    j->done_.set();
  }
  F& f_;
  job_result<result_type> result_;
  latch done_;
};

template <class R>
joined_t<R> take_joined(job_result<R>& r) {
  if constexpr (std::is_void_v<R>) {
    return std::monostate{};
  } else {
    return r.take();
  }
}

// join with b told whether it was stolen; the caller is a worker.
template <class A, class B>
auto join_on_worker(worker& w, A& a, B& b) {
  using ra = std::invoke_result_t<A&>;
  using rb = std::invoke_result_t<B&, bool>;
  join_job<B> jb(b, &w);
  w.push(&jb);
  job_result<ra> result_a;
  result_a.run(a);
  // Take b back; what lies above it are jobs a spawned (scope.spawn) and
  // left behind: run them first, they are ours too.
  for (;;) {
    job* j = w.pop();
    if (j == &jb) {
      jb.run_inline();
      break;
    }
    if (j == nullptr) {  // stolen: work elsewhere until the thief is done
      w.wait_until(jb.done());
      break;
    }
    w.run(j);
  }
  if (result_a.error) std::rethrow_exception(result_a.error);
  if (jb.result().error) std::rethrow_exception(jb.result().error);
  if constexpr (std::is_void_v<ra> && std::is_void_v<rb>) {
    return;
  } else {
    return std::pair<joined_t<ra>, joined_t<rb>>(take_joined(result_a), take_joined(jb.result()));
  }
}

template <class A, class B>
auto join_context(A& a, B& b) {
  if (worker* w = current_worker()) return join_on_worker(*w, a, b);
  auto in_pool = [&] { return join_on_worker(*current_worker(), a, b); };
  return install(default_pool_state(), in_pool);
}

}  // namespace detail

template <class A, class B>
auto join(A&& a, B&& b) {
  auto b_ignoring_steal = [&b](bool) -> decltype(auto) { return b(); };
  return detail::join_context(a, b_ignoring_steal);
}

}  // namespace lanes::compute
