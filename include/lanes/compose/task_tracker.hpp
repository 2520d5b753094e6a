// task_tracker: counts the tasks in flight, for graceful shutdown.
//
//   lanes::task_tracker tracker;
//   while (auto conn = co_await accept_or_shutdown()) tracker.spawn(serve(*conn));
//   tracker.close();                                          // no more work is coming
//   if (!co_await lanes::timeout(10s, tracker.wait())) {      // drain, with a deadline
//     tracker.abort_all();                                    // then cancel what is left
//     co_await tracker.wait();
//   }
//
// - spawn(t): spawns `t` on the calling task's runtime and counts it until
//   its frame is gone (finished, failed or cancelled). Returns its
//   join_handle; dropping the handle detaches the task, as usual.
// - close() says no more tasks are expected (spawn still works, as in
//   Tokio's TaskTracker); wait() completes once the tracker is closed and
//   nothing is in flight. wait() takes nothing, so it is safe in a race.
// - abort_all() aborts every task in flight; wait() then completes when
//   their cancellation has.
// A tracker is shared state: its tasks keep it alive, so it may be
// destroyed while they still run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include <lanes/io/runtime.hpp>
#include <lanes/sync/detail/condition_awaiter.hpp>

namespace lanes {

namespace detail {

struct tracker_state {
  std::mutex mutex;
  waiter_list waiters;
  std::unordered_map<std::uint64_t, task_header*> in_flight;  // each holds a reference
  std::uint64_t next_id = 0;
  bool closed = false;

  bool ready_locked() const noexcept { return closed && in_flight.empty(); }
  void forget(std::uint64_t id) noexcept;
};

// Lives in the tracked task's frame (a parameter, so it is destroyed even
// when the task is cancelled before it first ran): uncounts it.
class tracked_slot {
 public:
  tracked_slot(std::shared_ptr<tracker_state> s, std::uint64_t id) noexcept : state_(std::move(s)), id_(id) {}
  tracked_slot(tracked_slot&& other) noexcept : state_(std::move(other.state_)), id_(other.id_) {}
  tracked_slot(const tracked_slot&) = delete;
  tracked_slot& operator=(const tracked_slot&) = delete;
  ~tracked_slot() {
    if (state_) state_->forget(id_);
  }

 private:
  std::shared_ptr<tracker_state> state_;
  std::uint64_t id_;
};

// The tracked task and its slot, one parameter so that the order is fixed:
// the task's frames are destroyed before the slot uncounts it.
template <class T>
struct tracked_call {
  tracked_slot slot;
  task<T> inner;  // declared last: destroyed first
};
template <class T>
task<T> tracked(tracked_call<T> call) {
  co_return co_await std::move(call.inner);
}

}  // namespace detail

class task_tracker {
 public:
  task_tracker() : state_(std::make_shared<detail::tracker_state>()) {}
  task_tracker(const task_tracker&) = delete;
  task_tracker& operator=(const task_tracker&) = delete;

  template <class T>
  join_handle<T> spawn(task<T> t, const char* name = nullptr, source_location where = source_location::current()) {
    t.require_valid("lanes::task_tracker::spawn");
    std::uint64_t id = 0;
    {
      std::lock_guard lock(state_->mutex);
      id = state_->next_id++;
      state_->in_flight.emplace(id, nullptr);  // counted before it can run (and finish)
    }
    auto handle = lanes::spawn(detail::tracked(detail::tracked_call<T>{detail::tracked_slot(state_, id), std::move(t)}),
                               name, where);
    std::lock_guard lock(state_->mutex);
    if (auto it = state_->in_flight.find(id); it != state_->in_flight.end()) {
      handle.header()->ref();
      it->second = handle.header();
    }
    return handle;
  }

  void close() { set_closed(true); }
  // Takes close() back (wait() then waits again).
  void reopen() { set_closed(false); }
  bool is_closed() const {
    std::lock_guard lock(state_->mutex);
    return state_->closed;
  }
  std::size_t size() const {
    std::lock_guard lock(state_->mutex);
    return state_->in_flight.size();
  }

  void abort_all() {
    std::vector<detail::task_header*> tasks;
    {
      std::lock_guard lock(state_->mutex);
      for (auto& [id, header] : state_->in_flight) {
        if (header == nullptr) continue;
        header->ref();
        tasks.push_back(header);
      }
    }
    for (auto* t : tasks) {
      t->abort();
      t->unref();
    }
  }

  using awaiter = detail::condition_awaiter<detail::tracker_state, std::shared_ptr<detail::tracker_state>>;
  // Completes once the tracker is closed and no tracked task is in flight.
  awaiter wait() const noexcept { return awaiter(*state_, state_, "co_await task_tracker::wait()"); }

 private:
  void set_closed(bool closed) {
    std::vector<detail::waker> to_wake;
    {
      std::lock_guard lock(state_->mutex);
      state_->closed = closed;
      if (state_->ready_locked()) detail::pop_all_waiters(state_->waiters, to_wake);
    }
    for (auto& w : to_wake) std::move(w).wake();
  }

  std::shared_ptr<detail::tracker_state> state_;
};

inline void detail::tracker_state::forget(std::uint64_t id) noexcept {
  std::vector<waker> to_wake;
  task_header* header = nullptr;
  {
    std::lock_guard lock(mutex);
    auto it = in_flight.find(id);
    if (it == in_flight.end()) return;
    header = it->second;
    in_flight.erase(it);
    if (ready_locked()) pop_all_waiters(waiters, to_wake);
  }
  for (auto& w : to_wake) std::move(w).wake();
  if (header != nullptr) header->unref();
}

}  // namespace lanes
