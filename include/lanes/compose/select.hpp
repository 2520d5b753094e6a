// select: await several lanes awaitables at once; the first to finish wins.
//
//   auto r = co_await lanes::select(rx.recv(), shutdown.cancelled(), lanes::sleep(5s));
//   switch (r.index()) {
//     case 0: handle(std::get<0>(r)); break;   // the message (or closed)
//     case 1: co_return;                         // shut down
//     case 2: send_keepalive(); break;           // 5 s of silence
//   }
//
// The result is a std::variant with one alternative per branch, in order
// (std::monostate for a branch whose result is void); index() says which
// branch won. Branches given as rvalues are moved in; lvalues (a
// join_handle, a sleep kept as a deadline across a loop) are awaited by
// reference. An lvalue awaiter other than a sleep (a kept recv() or
// notified()) does not compile: a loser is cancelled by destroying its
// awaiter, and the race cannot destroy yours (detail/race.hpp).
//
// Semantics (the mechanism is detail/race.hpp):
// - All branches wait in the same task, for one suspension: no spawn, no
//   allocation, at most 32 branches (counting nested selects/timeouts).
// - Biased: when several branches are ready, the first listed wins; list
//   the one that must not starve first (a shutdown signal, say).
// - The losers are cancelled before select returns: their awaiters are
//   destroyed, their registrations removed, and what they had been granted
//   is given back. For the lanes awaitables that is "nothing lost": a recv
//   that lost took no message, an acquire that lost holds no permit, a
//   notified() that lost passes its notification on (docs/compose.md lists
//   each one). A join_handle that loses leaves its task running. An
//   offload (or an awaited spawn_blocking) that loses is settled first: its
//   work is dropped if still queued, else asked to stop (its
//   std::stop_token) and waited for, so select returns only once nothing
//   it handed out still reads the task's locals (one small coroutine frame
//   for such a select).
// - Tasks are not select branches (a task suspends many times): spawn it
//   and select on its join_handle, or use when_any, which does that and
//   aborts the losers.
#pragma once

#include <coroutine>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include <lanes/io/detail/race.hpp>

namespace lanes {

template <class... Awaitables>
class select_awaitable {
  using race_t = detail::race<detail::first_listed, Awaitables...>;

 public:
  explicit select_awaitable(Awaitables&&... a) : race_(detail::first_listed{}, std::forward<Awaitables>(a)...) {}

  bool await_ready() { return race_.await_ready(); }
  template <class Promise>
  bool await_suspend(std::coroutine_handle<Promise> h) {
    return race_.await_suspend(h);
  }
  auto await_resume() { return resume(std::index_sequence_for<Awaitables...>{}); }

  // As a branch of an enclosing race, when some branch needs settling
  // (race.hpp).
  bool settle(detail::task_header* arm) noexcept requires race_t::settles { return race_.settle(arm); }
  void fix_winners() requires race_t::settles { race_.fix_winners(); }
  bool settle_losers(detail::task_header* arm) noexcept requires race_t::settles { return race_.settle_losers(arm); }

 private:
  template <std::size_t... I>
  auto resume(std::index_sequence<I...>) {
    using variant_t = std::variant<detail::value_or_monostate<typename race_t::template branch_result<I>>...>;
    const std::size_t won = race_.winner();
    std::optional<variant_t> out;
    (void)((won == I && (emplace<I>(out), true)) || ...);
    return std::move(*out);
  }
  template <std::size_t I, class V>
  void emplace(std::optional<V>& out) {
    if constexpr (std::is_void_v<typename race_t::template branch_result<I>>) {
      race_.template resume_branch<I>();
      out.emplace(std::in_place_index<I>);
    } else {
      out.emplace(std::in_place_index<I>, race_.template resume_branch<I>());
    }
  }

  race_t race_;
};

template <class... Awaitables>
select_awaitable<Awaitables...> select(Awaitables&&... a) {
  return select_awaitable<Awaitables...>(std::forward<Awaitables>(a)...);
}

}  // namespace lanes
