// spawn_blocking(f): runs `f` on the blocking lane and lets an io task
// await its result without holding an io worker.
//
//   std::string text = co_await lanes::spawn_blocking([&] { return read_file(path); });
//
// The job starts at once. co_await the handle for f's result, or its
// exception with its type intact; if the job was dropped unrun (the runtime
// shut down first) awaiting throws task_cancelled. Dropping the handle
// detaches the job: it still runs, its result is discarded.
#pragma once

#include <exception>
#include <type_traits>
#include <utility>
#include <variant>

#include <lanes/blocking/blocking_pool.hpp>
#include <lanes/io/errors.hpp>
#include <lanes/sync/oneshot.hpp>

namespace lanes {

namespace detail {

template <class R>
using blocking_outcome = std::variant<std::conditional_t<std::is_void_v<R>, std::monostate, R>, std::exception_ptr>;

// The blocking pool of the runtime `owner` (created on first use).
blocking_pool& blocking_pool_of(scheduler& owner);

}  // namespace detail

template <class R>
class blocking_handle {
 public:
  explicit blocking_handle(oneshot_receiver<detail::blocking_outcome<R>> rx) noexcept : rx_(std::move(rx)) {}

  class awaiter {
   public:
    explicit awaiter(oneshot_receiver<detail::blocking_outcome<R>>& rx) noexcept : inner_(rx.operator co_await()) {}
    bool await_ready() { return inner_.await_ready(); }
    bool await_suspend(std::coroutine_handle<> h) { return inner_.await_suspend(h); }
    R await_resume() {
      auto got = inner_.await_resume();
      if (!got) throw task_cancelled();  // dropped unrun at shutdown
      auto& outcome = got.value();
      if (outcome.index() == 1) std::rethrow_exception(std::get<1>(outcome));
      if constexpr (!std::is_void_v<R>) return std::move(std::get<0>(outcome));
    }

   private:
    typename oneshot_receiver<detail::blocking_outcome<R>>::awaiter inner_;
  };

  awaiter operator co_await() & { return awaiter(rx_); }
  awaiter operator co_await() && { return awaiter(rx_); }

 private:
  oneshot_receiver<detail::blocking_outcome<R>> rx_;
};

// Runs `f` on `pool`.
template <class F>
auto spawn_blocking(blocking_pool& pool, F&& f, const char* name = nullptr,
                    source_location where = source_location::current()) {
  using R = std::invoke_result_t<std::decay_t<F>&>;
  static_assert(!std::is_reference_v<R>, "spawn_blocking: return a value or a pointer, not a reference");
  auto [tx, rx] = oneshot<detail::blocking_outcome<R>>();
  pool.submit(detail::blocking_job(
      [fn = std::forward<F>(f), tx = std::move(tx)]() mutable {
        detail::blocking_outcome<R> outcome;
        try {
          if constexpr (std::is_void_v<R>) {
            fn();
          } else {
            outcome.template emplace<0>(fn());
          }
        } catch (...) {
          outcome.template emplace<1>(std::current_exception());
        }
        (void)std::move(tx).send(std::move(outcome));  // a detached handle discards it
      },
      name, where));
  return blocking_handle<R>(std::move(rx));
}

// Runs `f` on the blocking lane of the calling task's runtime.
template <class F>
auto spawn_blocking(F&& f, const char* name = nullptr, source_location where = source_location::current()) {
  detail::scheduler* s = detail::current_scheduler();
  if (s == nullptr)
    throw runtime_misuse("lanes::spawn_blocking called outside an io task: use a blocking_pool directly");
  return spawn_blocking(detail::blocking_pool_of(*s), std::forward<F>(f), name, where);
}

}  // namespace lanes
