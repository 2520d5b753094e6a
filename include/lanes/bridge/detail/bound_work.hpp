// bound_work: the work one offload hands to another lane - a callable and
// its arguments, both owned, called once there. It is the owning form
// (offload(f, args...)): the arguments travel inside the job, so the work
// reads nothing of the task that made it.
//
// If f can be called with a std::stop_token first (f(token, args...)) it
// is, as std::jthread does: the token is asked to stop when the task that
// awaits the work is cancelled, so long work can end early. Otherwise f is
// called as f(args...). Arguments are passed as rvalues (the work runs
// once), as std::thread and std::jthread pass theirs.
#pragma once

#include <functional>
#include <stop_token>
#include <tuple>
#include <type_traits>
#include <utility>

namespace lanes::detail {

template <class F, class... Args>
inline constexpr bool takes_stop_token = std::is_invocable_v<F&, std::stop_token, Args&&...>;

template <class F, class... Args>
inline constexpr bool is_work_for = takes_stop_token<F, Args...> || std::is_invocable_v<F&, Args&&...>;

template <bool Stoppable, class F, class... Args>
struct work_result {
  using type = std::invoke_result_t<F&, Args&&...>;
};
template <class F, class... Args>
struct work_result<true, F, Args...> {
  using type = std::invoke_result_t<F&, std::stop_token, Args&&...>;
};

template <class F, class... Args>
class bound_work {
  static_assert(is_work_for<F, Args...>,
                "lanes: the work must be callable as f(args...), or as f(std::stop_token, args...) to see "
                "a cancellation");

 public:
  static constexpr bool stoppable = takes_stop_token<F, Args...>;
  using result_type = typename work_result<stoppable, F, Args...>::type;

  template <class G, class... A>
  explicit bound_work(G&& f, A&&... args) : f_(std::forward<G>(f)), args_(std::forward<A>(args)...) {}

  // Once, on the lane. `token` is the offload's (an empty one when the work
  // takes none).
  result_type operator()(std::stop_token token) {
    return std::apply(
        [&](Args&... args) -> result_type {
          if constexpr (stoppable) {
            return std::invoke(f_, std::move(token), std::move(args)...);
          } else {
            return std::invoke(f_, std::move(args)...);
          }
        },
        args_);
  }

 private:
  F f_;
  std::tuple<Args...> args_;
};

// The work offload(f, args...) stores: f and args decay-copied.
template <class F, class... Args>
using bound_work_for = bound_work<std::decay_t<F>, std::decay_t<Args>...>;

}  // namespace lanes::detail
