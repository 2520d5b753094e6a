// guarded_race: an operation raced against a guard (a timer, a
// cancellation token) that stops it: the operation's result, or the
// guard's error E. The one shape behind timeout() and with_cancellation().
//
// - A lanes awaitable is awaited in place (a race of two branches, see
//   race.hpp): no spawn; if the guard fires, the operation's awaiter is
//   destroyed before the result is returned, which cancels it (and gives
//   back anything it was granted). If both fired, the guard wins.
// - A task<T> may suspend many times, so it runs as a child task (one
//   spawn) and the race is between its join_handle and the guard. If the
//   guard wins, the child is aborted and its cancellation is awaited before
//   the result is returned (a child that finished just before the abort
//   landed keeps its result). If the task awaiting this is itself
//   cancelled, the child is aborted with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <lanes/io/detail/race.hpp>
#include <lanes/io/errors.hpp>
#include <lanes/io/join_handle.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/task.hpp>
#include <lanes/result.hpp>

namespace lanes::detail {

template <class T>
struct is_task : std::false_type {};
template <class T>
struct is_task<task<T>> : std::true_type {};

// Which side is checked first when both are ready at once: timeout lets
// an operation that is ready now win even past its deadline; a cancelled
// token stops even a ready operation.
enum class ready_first { operation, guard };

template <class E, class Op, class Guard, ready_first Order = ready_first::operation>
class guarded_race {
  static constexpr std::size_t op_index = Order == ready_first::operation ? 0 : 1;
  static constexpr std::size_t guard_index = 1 - op_index;
  struct guard_wins {  // if both fired, the guard wins
    std::size_t operator()(std::uint32_t fired) const noexcept {
      return (fired & (1U << guard_index)) != 0 ? guard_index : op_index;
    }
  };
  using race_t =
      std::conditional_t<Order == ready_first::operation, race<guard_wins, Op, Guard>, race<guard_wins, Guard, Op>>;

 public:
  using value_type = typename race_t::template branch_result<op_index>;

  guarded_race(Op&& op, Guard&& guard) requires(Order == ready_first::operation)
      : race_(guard_wins{}, std::forward<Op>(op), std::forward<Guard>(guard)) {}
  guarded_race(Op&& op, Guard&& guard) requires(Order == ready_first::guard)
      : race_(guard_wins{}, std::forward<Guard>(guard), std::forward<Op>(op)) {}

  bool await_ready() { return race_.await_ready(); }
  template <class Promise>
  bool await_suspend(std::coroutine_handle<Promise> h) {
    return race_.await_suspend(h);
  }
  // As a branch of an enclosing race, when the operation needs settling
  // (race.hpp).
  bool settle(task_header* arm) noexcept requires race_t::settles { return race_.settle(arm); }
  void fix_winners() requires race_t::settles { race_.fix_winners(); }
  bool settle_losers(task_header* arm) noexcept requires race_t::settles { return race_.settle_losers(arm); }

  result<value_type, E> await_resume() {
    if (race_.winner() == guard_index) return E{};
    if constexpr (std::is_void_v<value_type>) {
      race_.template resume_branch<op_index>();
      return result<void, E>();
    } else {
      return race_.template resume_branch<op_index>();
    }
  }

 private:
  race_t race_;
};

// Aborts a child task whose joiner is destroyed before it took the result.
template <class T>
struct abort_unless_joined {
  join_handle<T>& child;
  bool joined = false;
  ~abort_unless_joined() {
    if (!joined) child.abort();
  }
};

template <class E, ready_first Order, class T, class Guard>
task<result<T, E>> guarded_task(task<T> op, Guard guard, const char* name) {
  auto child = spawn(std::move(op), name);
  abort_unless_joined<T> joined{child};
  const bool stopped =
      !(co_await guarded_race<E, decltype(child.finished()), Guard, Order>(child.finished(), std::move(guard)));
  // Here the child has finished, or the guard fired: abort it (no effect if
  // it finished) and wait until its cancellation has completed.
  if (stopped) child.abort();
  joined.joined = true;
  try {
    if constexpr (std::is_void_v<T>) {
      co_await child;
      co_return result<T, E>();
    } else {
      co_return co_await child;
    }
  } catch (const task_cancelled&) {
    if (!stopped) throw;  // aborted by someone else: the child's own outcome
    co_return E{};
  }
}

}  // namespace lanes::detail
