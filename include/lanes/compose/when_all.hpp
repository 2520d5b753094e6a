// when_all / when_any: run tasks concurrently (each a child task, so on a
// multi-thread runtime they run in parallel) and await them together.
//
//   auto [user, cart] = co_await lanes::when_all(load_user(id), load_cart(id));
//   auto pages = co_await lanes::when_all(std::move(fetches));      // vector<task<T>> -> vector<T>
//   auto first = co_await lanes::when_any(ask(a), ask(b));          // variant; index() is the winner
//
// when_all: every result, in argument order (std::monostate for void). If
// one fails, the others are aborted and their cancellation has completed
// before the first failure is rethrown, with its type intact;
// when_all(on_failure::wait_rest, ...) lets them finish instead.
//
// when_any: the first task to finish, value or exception, and which one it
// was. The others are aborted and their cancellation has completed before
// when_any returns (a loser that finished in the same instant has its
// result dropped: use select over awaitables when losing must not lose data).
//
// If the task awaiting when_all/when_any is itself cancelled, the children
// are aborted and finish cancelling on the workers: give them what they
// own, not references into the caller (task_group is for borrowing).
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <lanes/compose/detail/drain.hpp>
#include <lanes/compose/on_failure.hpp>
#include <lanes/io/detail/race.hpp>
#include <lanes/io/join_set.hpp>
#include <lanes/io/task.hpp>

namespace lanes {

namespace detail {

// Runs `t`, hands its value to `store` (a slot of the caller's shared
// results), and returns its index: one wrapper for every form below.
template <class T, class Store>
task<std::size_t> deliver(std::size_t index, task<T> t, Store store) {
  if constexpr (std::is_void_v<T>) {
    co_await std::move(t);
    store(std::monostate{});
  } else {
    store(co_await std::move(t));
  }
  co_return index;
}

template <class... T>
using tuple_slots = std::tuple<std::optional<value_or_monostate<T>>...>;
template <class T>
using vector_slots = std::vector<std::optional<value_or_monostate<T>>>;

template <std::size_t I, class T, class Slots>
task<std::size_t> deliver_to_tuple(task<T> t, std::shared_ptr<Slots> slots) {
  return deliver(I, std::move(t), [slots](auto&& v) { std::get<I>(*slots).emplace(std::forward<decltype(v)>(v)); });
}
template <class T>
task<std::size_t> deliver_to_vector(std::size_t i, task<T> t, std::shared_ptr<vector_slots<T>> slots) {
  return deliver(i, std::move(t), [slots, i](auto&& v) { (*slots)[i].emplace(std::forward<decltype(v)>(v)); });
}

inline void rethrow_first(const std::vector<std::exception_ptr>& errors) {
  if (!errors.empty()) std::rethrow_exception(errors.front());
}

template <class... T, std::size_t... I>
task<std::tuple<value_or_monostate<T>...>> when_all_impl(on_failure policy, std::index_sequence<I...>,
                                                         task<T>... tasks) {
  auto results = std::make_shared<tuple_slots<T...>>();
  join_set<std::size_t> set;
  (set.spawn(deliver_to_tuple<I>(std::move(tasks), results), "when_all"), ...);
  std::vector<std::exception_ptr> errors;
  bool aborted = false;
  co_await drain(
      set, policy, errors, aborted, [&] { set.abort_all(); }, [](std::size_t) { return false; });
  rethrow_first(errors);
  co_return std::tuple<value_or_monostate<T>...>(std::move(*std::get<I>(*results))...);
}

template <class... T, std::size_t... I>
task<std::variant<value_or_monostate<T>...>> when_any_impl(std::index_sequence<I...>, task<T>... tasks) {
  auto results = std::make_shared<tuple_slots<T...>>();
  join_set<std::size_t> set;
  (set.spawn(deliver_to_tuple<I>(std::move(tasks), results), "when_any"), ...);
  std::vector<std::exception_ptr> errors;
  std::optional<std::size_t> winner;
  bool aborted = false;
  co_await drain(
      set, on_failure::cancel_rest, errors, aborted, [&] { set.abort_all(); },
      [&](std::size_t i) {
        winner = i;
        return true;
      });
  if (!winner) rethrow_first(errors);  // the first to finish failed
  std::optional<std::variant<value_or_monostate<T>...>> out;
  (void)((*winner == I && (out.emplace(std::in_place_index<I>, std::move(*std::get<I>(*results))), true)) || ...);
  co_return std::move(*out);
}

}  // namespace detail

template <class... T>
task<std::tuple<detail::value_or_monostate<T>...>> when_all(on_failure policy, task<T>... tasks) {
  return detail::when_all_impl(policy, std::index_sequence_for<T...>{}, std::move(tasks)...);
}
template <class... T>
task<std::tuple<detail::value_or_monostate<T>...>> when_all(task<T>... tasks) {
  return when_all(on_failure::cancel_rest, std::move(tasks)...);
}

// Over a range: the results in the order of `tasks`.
template <class T>
task<std::conditional_t<std::is_void_v<T>, void, std::vector<T>>> when_all(
    std::vector<task<T>> tasks, on_failure policy = on_failure::cancel_rest) {
  auto results = std::make_shared<detail::vector_slots<T>>(tasks.size());
  join_set<std::size_t> set;
  for (std::size_t i = 0; i < tasks.size(); ++i)
    set.spawn(detail::deliver_to_vector(i, std::move(tasks[i]), results), "when_all");
  std::vector<std::exception_ptr> errors;
  bool aborted = false;
  co_await detail::drain(
      set, policy, errors, aborted, [&] { set.abort_all(); }, [](std::size_t) { return false; });
  detail::rethrow_first(errors);
  if constexpr (!std::is_void_v<T>) {
    std::vector<T> out;
    out.reserve(results->size());
    for (auto& v : *results) out.push_back(std::move(*v));
    co_return out;
  }
}

template <class... T>
task<std::variant<detail::value_or_monostate<T>...>> when_any(task<T>... tasks) {
  static_assert(sizeof...(T) >= 1, "lanes::when_any needs at least one task");
  return detail::when_any_impl(std::index_sequence_for<T...>{}, std::move(tasks)...);
}

// Over a range: which task finished first, and its value. An empty range
// is an std::invalid_argument.
template <class T>
task<std::pair<std::size_t, detail::value_or_monostate<T>>> when_any(std::vector<task<T>> tasks) {
  if (tasks.empty()) throw std::invalid_argument("lanes::when_any of no tasks");
  auto results = std::make_shared<detail::vector_slots<T>>(tasks.size());
  join_set<std::size_t> set;
  for (std::size_t i = 0; i < tasks.size(); ++i)
    set.spawn(detail::deliver_to_vector(i, std::move(tasks[i]), results), "when_any");
  std::vector<std::exception_ptr> errors;
  std::optional<std::size_t> winner;
  bool aborted = false;
  co_await detail::drain(
      set, on_failure::cancel_rest, errors, aborted, [&] { set.abort_all(); },
      [&](std::size_t i) {
        winner = i;
        return true;
      });
  if (!winner) detail::rethrow_first(errors);
  co_return std::pair<std::size_t, detail::value_or_monostate<T>>(*winner, std::move(*(*results)[*winner]));
}

}  // namespace lanes
