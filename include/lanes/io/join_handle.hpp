// join_handle<T>: what spawn returns. co_await it for the task's result (or
// its exception, or task_cancelled if it was aborted). abort() cancels the
// task at its next suspension point. Dropping the handle detaches the task:
// it keeps running, and an exception it ends with goes to the runtime's
// handler (counted, printed by default) instead of being lost.
#pragma once

#include <coroutine>
#include <cstdint>
#include <new>
#include <optional>
#include <utility>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/detail/task_header.hpp>
#include <lanes/io/errors.hpp>
#include <lanes/io/task.hpp>

namespace lanes {

namespace detail {

template <class T>
struct stored_result {
  std::optional<T> value;
  template <class Promise>
  void take(Promise& p) {
    value.emplace(std::move(std::get<1>(p.value)));
  }
  T get() { return std::move(*value); }
};
template <class T>
struct stored_result<T&> {
  T* value = nullptr;
  template <class Promise>
  void take(Promise& p) {
    value = p.value;
  }
  T& get() { return *value; }
};
template <>
struct stored_result<void> {
  template <class Promise>
  void take(Promise&) {}
  void get() {}
};

// A spawned task: the header plus where its result waits for the joiner.
template <class T>
class spawned_task final : public task_header {
 public:
  spawned_task(scheduler* owner, std::coroutine_handle<task_promise<T>> frame, const char* name,
               lanes::source_location where, int home_worker) noexcept
      : task_header(owner, frame, name, where, home_worker), frame_(frame) {}

  // Called once, by the joiner that consumes the handle. The exception is
  // moved out, not copied: the joiner's rethrow then holds it alone, and the
  // worker that may still hold the task's last reference frees an empty
  // pointer. Its reference count lives in libstdc++, which ThreadSanitizer
  // does not see: a release there while the catch block reads the message
  // was reported as a race (tests/io/stress_test.cpp).
  T get_result() {
    if (was_cancelled()) throw task_cancelled();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return result_.get();
  }

 private:
  void take_result() noexcept override {
    auto& promise = frame_.promise();
    if (promise.error) {
      error_ = promise.error;
      return;
    }
    try {
      result_.take(promise);
    } catch (...) {
      error_ = std::current_exception();  // the result's move constructor threw
    }
  }
  std::coroutine_handle<task_promise<T>> frame_;
  stored_result<T> result_;
};

}  // namespace detail

template <class T>
class join_handle {
 public:
  join_handle() noexcept = default;
  explicit join_handle(detail::spawned_task<T>* task) noexcept : task_(task) {}
  join_handle(join_handle&& other) noexcept : task_(std::exchange(other.task_, nullptr)) {}
  join_handle& operator=(join_handle&& other) noexcept {
    if (this != &other) {
      release();
      task_ = std::exchange(other.task_, nullptr);
    }
    return *this;
  }
  join_handle(const join_handle&) = delete;
  join_handle& operator=(const join_handle&) = delete;
  ~join_handle() { release(); }

  // Cancels the task at its next suspension point (at once if it is
  // waiting). Awaiting the handle then throws task_cancelled, unless the
  // task finished first.
  void abort() noexcept {
    if (task_) task_->abort();
  }
  bool is_finished() const noexcept { return task_ != nullptr && task_->is_complete(); }
  bool valid() const noexcept { return task_ != nullptr; }

  auto operator co_await() && { return awaiter<true>{this}; }
  auto operator co_await() & { return awaiter<true>{this}; }
  // Completes when the task has finished (with a result, an exception, or
  // cancelled), and leaves the outcome for a later co_await of the handle.
  auto finished() noexcept { return awaiter<false>{this}; }

  // For block_on and co_await: the outcome of a task known to be complete,
  // taken once. The handle lets go of the task as it takes it (it is empty
  // afterwards: a Tokio JoinHandle is consumed by .await too), while the
  // header is in cache from the completion just seen, rather than when the
  // handle is destroyed, maybe much later (a loop over many handles after
  // the last join would take a cache miss for each).
  T take_completed_result() {
    struct release_on_exit {
      join_handle& handle;
      ~release_on_exit() { handle.release(); }  // after the result is moved out (or thrown)
    } guard{*this};
    task_->mark_result_taken();
    return task_->get_result();
  }
  detail::task_header* header() const noexcept { return task_; }

 private:
  // Take: await_resume takes the result (co_await handle); otherwise it
  // only reports that the task has finished (finished()).
  template <bool Take>
  struct awaiter {
    join_handle* handle;
    bool registered = false;

    awaiter(join_handle* h) noexcept : handle(h) {}
    awaiter(awaiter&& other) noexcept : handle(other.handle), registered(std::exchange(other.registered, false)) {}
    ~awaiter() {
      if (registered) handle->task_->unregister_joiner();
    }

    bool await_ready() const {
      if (handle->task_ == nullptr) detail::throw_misuse("lanes: co_await on an empty join_handle");
      return handle->is_finished() && detail::coop_consume();
    }
    bool await_suspend(std::coroutine_handle<> h) {
      auto& self = detail::require_current_task("co_await join_handle");
      self.set_resume_point(h);
      detail::waker w = self.make_waker();
      if (handle->is_finished()) {
        // Finished, but the coop budget ran out: yield first, then read the result.
        std::move(w).wake();
        return true;
      }
      // Its own handle: it would wait for its own completion, which waits for it.
      if (handle->task_ == &self) [[unlikely]] {
        detail::throw_misuse("lanes: a task awaiting its own join_handle would wait for itself forever");
      }
      using registration = detail::task_header::join_registration;
      const registration r = handle->task_->register_joiner(w);
      if (r == registration::registered) {
        registered = true;
        return true;
      }
      if (r == registration::taken) [[unlikely]] {
        detail::throw_misuse(
            "lanes: a join_handle awaited twice at once (by two tasks, or in two branches of one select): one "
            "wait at a time");
      }
      return false;  // finished meanwhile: resume at once
    }
    decltype(auto) await_resume() {
      registered = false;
      if constexpr (Take) return handle->take_completed_result();
    }
  };

  void release() noexcept {
    if (task_ == nullptr) return;
    // complete() reads JOIN_INTEREST once, when it publishes COMPLETE, and
    // nothing reads it after; a handle that took the result knows that has
    // happened, so it only drops its reference (one atomic operation fewer
    // per spawn + await).
    if (!task_->result_taken()) {
      if (task_->drop_join_interest()) task_->report_unobserved_error();
    }
    task_->unref();
    task_ = nullptr;
  }

  detail::spawned_task<T>* task_ = nullptr;  // one pointer: a vector of handles is a vector of pointers
};

namespace detail {

// The header of a task about to be spawned, allocated before the spawn
// starts anything: the spawn's one allocation, so its only failure
// (std::bad_alloc) comes first, and start() cannot throw. A caller that
// builds the task after reserving (join_set's wrapper, which records its
// outcome from the moment it exists) then has nothing to undo. Memory not
// started goes back to the frame cache.
template <class T>
class spawn_reservation {
 public:
  spawn_reservation() : memory_(spawned_task<T>::operator new(sizeof(spawned_task<T>))) {}
  spawn_reservation(const spawn_reservation&) = delete;
  spawn_reservation& operator=(const spawn_reservation&) = delete;
  ~spawn_reservation() {
    if (memory_ != nullptr) spawned_task<T>::operator delete(memory_, sizeof(spawned_task<T>));
  }

  // `t` must be valid (task::require_valid). `home`: a worker index for a
  // task that must stay on it (spawn_local), or -1. Once only.
  join_handle<T> start(scheduler& s, task<T> t, const char* name, lanes::source_location where,
                       int home = -1) noexcept {
    // ::new: the class's own operator new(size_t) hides the placement form.
    // The header is freed by `delete` (the virtual destructor hands its size
    // to the class's sized delete), matching the class's new used above.
    auto* header = ::new (std::exchange(memory_, nullptr)) spawned_task<T>(&s, t.release(), name, where, home);
    schedule_spawned(s, *header);
    return join_handle<T>(header);
  }

 private:
  void* memory_;
};

}  // namespace detail

}  // namespace lanes
