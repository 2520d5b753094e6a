// task_group: structured concurrency (a nursery). Tasks spawned into a
// group cannot outlive it, so they may borrow from the task that owns it.
//
//   co_await lanes::with_task_group([&](lanes::task_group& g) -> lanes::task<void> {
//     for (auto& shard : shards) g.spawn(scan(shard, query));   // may borrow `query`
//     co_return;
//   });   // here every child has finished; the first failure is rethrown
//
// - join() awaits every child, including those spawned while it waits (a
//   child may spawn siblings into the group it was given).
// - on_failure::cancel_rest (default): the first failure aborts the rest;
//   their cancellation completes before join() returns. wait_rest lets
//   them finish. Either way every failure is kept (errors()), and join()
//   rethrows the first, type intact. A child the group aborted is not a
//   failure.
// - A group destroyed before join() finished (its owner was cancelled, or
//   threw) cancels its children *now*: idle ones are destroyed on the
//   spot, one being polled on another worker is waited for until that poll
//   ends, and work a child handed to another lane (an offload) that still
//   runs is asked to stop and waited for, blocking the thread that
//   destroys the group. So nothing a child borrows is freed under it.
// - spawn() after the group was cancelled or joined cancels the new task
//   at once (it never runs).
#pragma once

#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <lanes/compose/detail/drain.hpp>
#include <lanes/compose/on_failure.hpp>
#include <lanes/io/detail/race.hpp>
#include <lanes/io/join_set.hpp>
#include <lanes/io/task.hpp>
#include <lanes/source_location.hpp>

namespace lanes {

class task_group {
 public:
  explicit task_group(on_failure policy = on_failure::cancel_rest) noexcept : policy_(policy) {}
  task_group(const task_group&) = delete;
  task_group& operator=(const task_group&) = delete;
  ~task_group() {
    // Never wait for a child while holding the lock: one polled on another
    // worker may be inside spawn(). Spawns after closed_ never start.
    for (;;) {
      std::vector<join_handle<void>> members;
      {
        std::lock_guard lock(mutex_);
        closed_ = true;
        members = set_.take_members();
      }
      if (members.empty()) break;
      for (auto& h : members) detail::cancel_now(*h.header());
    }
  }

  // Starts `t` on the calling task's runtime as a member of this group;
  // its result is discarded, its exception kept. Callable from the owner
  // and from the group's own children.
  template <class T>
  void spawn(task<T> t, const char* name = nullptr, source_location where = source_location::current()) {
    t.require_valid("lanes::task_group::spawn");
    std::lock_guard lock(mutex_);
    if (closed_) return;  // too late: `t` is destroyed unstarted
    set_.spawn(discard(std::move(t)), name, where);
  }

  // Awaits every member (see above); rethrows the first failure.
  task<void> join() {
    co_await detail::drain(
        set_, policy_, errors_, aborting_, [this] { abort_members(); }, [] { return false; });
    std::lock_guard lock(mutex_);
    closed_ = true;
    if (!errors_.empty()) std::rethrow_exception(errors_.front());
  }

  // Aborts every member (from the owning task); join() still awaits their
  // cancellation, and does not count it as a failure.
  void cancel() {
    aborting_ = true;
    abort_members();
  }

  // Every failure join() saw, in the order they happened.
  const std::vector<std::exception_ptr>& errors() const noexcept { return errors_; }
  std::size_t size() const { return set_.size(); }

 private:
  // Aborts the members, and closes the group: a child that spawns a
  // sibling from now on spawns nothing (see spawn()).
  void abort_members() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    set_.abort_all();
  }
  template <class T>
  static task<void> discard(task<T> t) {
    (void)co_await std::move(t);
  }

  on_failure policy_;
  std::mutex mutex_;  // spawn() may come from children on other workers
  join_set<void> set_;
  std::vector<std::exception_ptr> errors_;
  bool closed_ = false;    // guarded by mutex_
  bool aborting_ = false;  // the owning task's: set by cancel() or by join() on a failure
};

// Runs `body(group)`, then awaits the group; if the body throws, the
// children are cancelled and awaited, then the body's exception is
// rethrown. Returns the body's result.
template <class Body>
auto with_task_group(Body body, on_failure policy = on_failure::cancel_rest)
    -> task<typename decltype(body(std::declval<task_group&>()))::value_type> {
  using R = typename decltype(body(std::declval<task_group&>()))::value_type;
  task_group group(policy);
  std::exception_ptr body_failed;
  std::optional<detail::value_or_monostate<R>> out;
  try {
    if constexpr (std::is_void_v<R>) {
      co_await body(group);
    } else {
      out.emplace(co_await body(group));
    }
  } catch (...) {
    body_failed = std::current_exception();
    group.cancel();
  }
  if (body_failed) {
    try {
      co_await group.join();
    } catch (...) {
    }
    std::rethrow_exception(body_failed);
  }
  co_await group.join();
  if constexpr (!std::is_void_v<R>) co_return std::move(*out);
}

}  // namespace lanes
