// join_set<T>: spawn many tasks, take their results as they finish.
//
//   lanes::join_set<int> set;
//   for (auto& r : requests) set.spawn(handle(r));
//   while (auto v = co_await set.join_next()) use(*v);   // in completion order
//
// join_next() returns the next finished task's value (std::nullopt once the
// set is empty), or rethrows its exception, or throws task_cancelled for a
// member that was aborted. Destroying the set aborts every member still
// running. join_next is cancellation-safe: a task aborted while it waits in
// join_next loses no result, nor does a join_next that loses a select or
// times out; the next join_next returns it.
//
// Each member runs inside a small wrapper coroutine (awaiting a task runs
// it inline, so no extra spawn) that records its outcome in the set's
// shared completion queue, even when it is cancelled.
#pragma once

#include <algorithm>
#include <coroutine>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include <lanes/io/detail/waiter_slot.hpp>
#include <lanes/io/errors.hpp>
#include <lanes/io/runtime.hpp>

namespace lanes {

template <class T>
class join_set {
  static_assert(!std::is_reference_v<T>, "join_set<T&> is not supported: return a pointer");
  struct cancelled_marker {};
  using stored = std::conditional_t<std::is_void_v<T>, std::monostate, T>;
  using outcome = std::variant<stored, std::exception_ptr, cancelled_marker>;

  // Shared with the member wrappers, which may outlive the set while they
  // are being cancelled.
  struct shared_state {
    std::mutex mutex;
    std::deque<outcome> finished;
    detail::waiter_slot waiter;  // the task blocked in join_next, if any
    std::size_t unfinished = 0;

    void push(outcome o) {
      detail::waker to_wake;
      {
        std::lock_guard lock(mutex);
        finished.push_back(std::move(o));
        --unfinished;
        to_wake = waiter.take();
      }
      if (to_wake) std::move(to_wake).wake();
    }
  };

  // Records the member's outcome exactly once: a value, an exception, or
  // (from the destructor, when the frame is destroyed unfinished - even
  // before it first ran) cancelled. It is the wrapper's one parameter, so it
  // exists from the spawn on. It owns the member's task and destroys it
  // before recording `cancelled`: whoever join_next wakes may rely on the
  // member's frames (and so its destructors) being gone (task_group does).
  // Only the wrapper frame's copy records (`armed`, set by the move that
  // makes it): the argument it was moved from, left behind when the frame's
  // allocation fails, records nothing.
  struct recorder {
    std::shared_ptr<shared_state> state;  // null once moved from
    task<T> inner;
    bool armed = false;
    bool recorded = false;
    recorder(std::shared_ptr<shared_state> s, task<T> t) noexcept : state(std::move(s)), inner(std::move(t)) {}
    recorder(recorder&& other) noexcept
        : state(std::move(other.state)), inner(std::move(other.inner)), armed(true), recorded(other.recorded) {}
    recorder(const recorder&) = delete;
    recorder& operator=(const recorder&) = delete;
    void record(outcome o) {
      inner = task<T>();  // finished: its frame goes before the outcome is published
      recorded = true;
      state->push(std::move(o));
    }
    ~recorder() {
      inner = task<T>();
      if (state && armed && !recorded) state->push(outcome(std::in_place_index<2>));
    }
  };

  static task<void> member(recorder rec) {
    try {
      if constexpr (std::is_void_v<T>) {
        co_await std::move(rec.inner);
        rec.record(outcome(std::in_place_index<0>));
      } else {
        auto value = co_await std::move(rec.inner);
        rec.record(outcome(std::in_place_index<0>, std::move(value)));
      }
    } catch (...) {
      rec.record(outcome(std::in_place_index<1>, std::current_exception()));
    }
  }

 public:
  join_set() : state_(std::make_shared<shared_state>()) {}
  join_set(const join_set&) = delete;
  join_set& operator=(const join_set&) = delete;
  // A moved-from set is an empty set: size() 0, join_next() returns at once
  // with nothing, and spawn() starts it afresh.
  join_set(join_set&&) noexcept = default;
  // The set given up aborts its tasks first, as its destructor would (a
  // defaulted assignment let them run on, detached).
  join_set& operator=(join_set&& other) noexcept {
    if (this != &other) {
      abort_all();
      state_ = std::move(other.state_);
      members_ = std::move(other.members_);
    }
    return *this;
  }
  ~join_set() { abort_all(); }

  // Spawns onto the calling task's runtime. A spawn that throws - misuse
  // (an empty task, a call outside an io task: runtime_misuse) or
  // std::bad_alloc - leaves the set as it was: everything that can throw
  // (the handles' room, the task's header, the wrapper's frame) comes before
  // the member is counted, and the wrapper starts only after.
  void spawn(task<T> t, const char* name = nullptr, source_location where = source_location::current()) {
    t.require_valid("lanes::join_set::spawn");
    detail::scheduler* const runtime = detail::current_scheduler();
    if (runtime == nullptr) [[unlikely]]
      detail::throw_misuse("lanes::join_set::spawn called outside an io task: call it inside a task");
    if (!state_) state_ = std::make_shared<shared_state>();
    if (members_.size() == members_.capacity()) members_.reserve(std::max<std::size_t>(8, 2 * members_.size()));
    detail::spawn_reservation<void> header;
    task<void> wrapper = member(recorder(state_, std::move(t)));
    {
      std::lock_guard lock(state_->mutex);
      ++state_->unfinished;
    }
    members_.push_back(header.start(*runtime, std::move(wrapper), name, where));  // room reserved: no throw
  }

  // Aborts every member still running; each is cancelled at its next
  // suspension point, on a worker (join_next then reports task_cancelled).
  // The handles stay: an owner that must wait for the cancellation to
  // complete (task_group's destructor) still finds them.
  void abort_all() noexcept {
    for (auto& h : members_) h.abort();
  }
  // Hands the members' handles to the caller (the set keeps counting them
  // for join_next): for owners that cancel them their own way (task_group).
  std::vector<join_handle<void>> take_members() noexcept {
    auto members = std::move(members_);
    members_.clear();
    return members;
  }

  // Members spawned and not yet returned by join_next.
  std::size_t size() const {
    if (!state_) return 0;  // moved from
    std::lock_guard lock(state_->mutex);
    return state_->unfinished + state_->finished.size();
  }
  bool empty() const { return size() == 0; }

  class next_awaiter {
   public:
    // `s` null: the set was moved from, and has no members.
    explicit next_awaiter(shared_state* s) noexcept : state_(s) {}
    // Before it waits only, as for every lanes awaiter: so that a select or
    // a timeout can take it in (race.hpp moves an rvalue branch into place).
    next_awaiter(next_awaiter&& other) noexcept : state_(other.state_) {}
    next_awaiter(const next_awaiter&) = delete;
    next_awaiter& operator=(const next_awaiter&) = delete;
    ~next_awaiter() {
      if (waiting_ == nullptr) return;
      detail::waker dropped;  // cancelled while waiting: give up the slot (if still ours)
      std::lock_guard lock(state_->mutex);
      dropped = state_->waiter.leave(waiting_);
    }

    bool await_ready() {
      if (state_ == nullptr) return true;
      std::lock_guard lock(state_->mutex);
      return !state_->finished.empty() || state_->unfinished == 0;
    }
    bool await_suspend(std::coroutine_handle<> h) {
      auto& self = detail::require_current_task("co_await join_set::join_next()");
      self.set_resume_point(h);
      detail::waker w = self.make_waker();
      std::lock_guard lock(state_->mutex);
      if (!state_->finished.empty() || state_->unfinished == 0) return false;
      state_->waiter.occupy(std::move(w), "lanes::join_set::join_next");
      waiting_ = &self;
      return true;
    }
    auto await_resume() {
      waiting_ = nullptr;
      using result_type = std::conditional_t<std::is_void_v<T>, bool, std::optional<T>>;
      if (state_ == nullptr) return result_type{};
      std::unique_lock lock(state_->mutex);
      if (state_->finished.empty()) return result_type{};
      outcome o = std::move(state_->finished.front());
      state_->finished.pop_front();
      lock.unlock();
      if (o.index() == 1) std::rethrow_exception(std::get<1>(o));
      if (o.index() == 2) throw task_cancelled();
      if constexpr (std::is_void_v<T>) {
        return true;
      } else {
        return result_type(std::move(std::get<0>(o)));
      }
    }

   private:
    shared_state* state_;
    const detail::task_header* waiting_ = nullptr;  // the task whose waker is in the slot
  };

  // The next member to finish: std::optional<T> (bool for join_set<void>),
  // empty once no member is left.
  next_awaiter join_next() noexcept { return next_awaiter(state_.get()); }

 private:
  std::shared_ptr<shared_state> state_;
  std::vector<join_handle<void>> members_;
};

}  // namespace lanes
