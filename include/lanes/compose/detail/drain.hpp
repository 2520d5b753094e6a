// drain: awaits every member of a join_set, in completion order, applying
// an on_failure policy. The one loop behind when_all, when_any and
// task_group::join.
//
// A failure is a member's exception, or task_cancelled for a member that
// something else aborted. Members this loop aborted itself (after the first
// failure, or once `stop` said so) are not failures. The first failure is
// kept as thrown (its type intact); later ones are appended to `errors`.
#pragma once

#include <exception>
#include <type_traits>
#include <vector>

#include <lanes/compose/on_failure.hpp>
#include <lanes/io/errors.hpp>
#include <lanes/io/join_set.hpp>
#include <lanes/io/task.hpp>

namespace lanes::detail {

// on_value(v) (on_value() for join_set<void>) is called for each member
// that finished with a value (until the rest were aborted) and returns true
// to stop early (when_any). To stop, drain sets `aborted` and calls
// abort_rest(); the owner may have done both already (task_group::cancel).
// Either way drain returns once every member has finished.
template <class T, class AbortRest, class OnValue>
task<void> drain(join_set<T>& set, on_failure policy, std::vector<std::exception_ptr>& errors, bool& aborted,
                 AbortRest abort_rest, OnValue on_value) {
  while (!set.empty()) {
    try {
      bool stop = false;
      if constexpr (std::is_void_v<T>) {
        if (co_await set.join_next() && !aborted) stop = on_value();
      } else {
        if (auto v = co_await set.join_next(); v && !aborted) stop = on_value(std::move(*v));
      }
      if (stop) {
        aborted = true;
        abort_rest();
      }
    } catch (const task_cancelled&) {
      if (!aborted) errors.push_back(std::current_exception());
    } catch (...) {
      errors.push_back(std::current_exception());
      if (!aborted && policy == on_failure::cancel_rest) {
        aborted = true;
        abort_rest();
      }
    }
  }
}

}  // namespace lanes::detail
