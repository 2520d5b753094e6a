// lanes::task<T>: a lazy coroutine. It starts when awaited (or spawned) and
// hands control back with symmetric transfer both ways, so a long chain of
// co_awaits that complete synchronously does not grow the stack. Results,
// references and exceptions travel to the awaiter. Move-only; its only
// allocation is the coroutine frame. A task yields its result once: a
// second co_await of a finished task<T>, or a co_await of a task another
// co_await is running, is a runtime_misuse (not a moved-from value, not a
// coroutine resumed twice).
#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

#include <lanes/io/detail/frame_allocator.hpp>
#include <lanes/io/detail/misuse.hpp>
#include <lanes/io/errors.hpp>

namespace lanes {

template <class T = void>
class task;

namespace detail {

struct task_promise_base {
  // Frames come from the per-thread frame cache (frame_allocator.hpp).
  static void* operator new(std::size_t size) { return allocate_frame(size); }
  static void operator delete(void* frame, std::size_t size) noexcept { free_frame(frame, size); }

  std::coroutine_handle<> continuation = std::noop_coroutine();
  std::exception_ptr error;

  struct final_awaiter {
    bool await_ready() const noexcept { return false; }
    template <class Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> self) const noexcept {
      return self.promise().continuation;  // symmetric transfer: no stack growth
    }
    void await_resume() const noexcept {}
  };

  std::suspend_always initial_suspend() const noexcept { return {}; }
  final_awaiter final_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
};

template <class T>
struct task_promise : task_promise_base {
  std::variant<std::monostate, T> value;
  task<T> get_return_object() noexcept;
  template <class U = T>
  requires std::is_convertible_v<U&&, T>
  // clang-tidy 14 does not weigh the condition: noexcept only where T's
  // constructor cannot throw, and then emplace cannot either.
  void return_value(U&& v) noexcept(  // NOLINT(bugprone-exception-escape)
      std::is_nothrow_constructible_v<T, U&&>) {
    value.template emplace<1>(std::forward<U>(v));
  }
  // Moves the value out and leaves the slot empty, so a second take is an
  // error instead of a moved-from T.
  T take() {
    if (error) std::rethrow_exception(error);
    if (value.index() == 0) [[unlikely]]
      throw_misuse("lanes: co_await on a task whose result was already taken");
    T out = std::move(std::get<1>(value));
    value.template emplace<0>();
    return out;
  }
};

template <class T>
struct task_promise<T&> : task_promise_base {
  T* value = nullptr;
  task<T&> get_return_object() noexcept;
  void return_value(T& v) noexcept { value = &v; }
  T& take() {
    if (error) std::rethrow_exception(error);
    return *value;
  }
};

template <>
struct task_promise<void> : task_promise_base {
  task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void take() {
    if (error) std::rethrow_exception(error);
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] task {
 public:
  using promise_type = detail::task_promise<T>;
  using value_type = T;

  task() noexcept = default;
  explicit task(std::coroutine_handle<promise_type> h) noexcept : handle_(h) {}
  task(task&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  task& operator=(task&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  ~task() { reset(); }

  bool valid() const noexcept { return static_cast<bool>(handle_); }
  // For the calls that start a task (spawn, join_set::spawn...): an empty
  // one is a runtime_misuse naming `call`.
  const task& require_valid(const char* call) const {
    if (!handle_) [[unlikely]]
      detail::throw_empty_task(call);
    return *this;
  }

  // co_await runs the task to completion (resuming the awaiter afterwards)
  // and yields its result or rethrows its exception.
  auto operator co_await() && noexcept { return awaiter{handle_}; }
  auto operator co_await() & noexcept { return awaiter{handle_}; }

  // For the runtime: give up ownership of the frame.
  std::coroutine_handle<promise_type> release() noexcept { return std::exchange(handle_, nullptr); }

 private:
  struct awaiter {
    std::coroutine_handle<promise_type> child;
    // A child that has a continuation and is not done is running under
    // another co_await: resuming it here would resume it twice. (The
    // continuation is noop_coroutine() until the first co_await sets it.)
    bool await_ready() const {
      if (!child || child.done()) return true;
      if (child.promise().continuation != std::coroutine_handle<>(std::noop_coroutine())) [[unlikely]] {
        detail::throw_misuse("lanes: co_await on a task that another co_await is already running");
      }
      return false;
    }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> parent) noexcept {
      child.promise().continuation = parent;
      return child;  // start the child now, on this thread
    }
    decltype(auto) await_resume() {
      if (!child) [[unlikely]]
        detail::throw_misuse("lanes: co_await on an empty task (moved from or released)");
      return child.promise().take();
    }
  };

  void reset() noexcept {
    if (handle_) handle_.destroy();
    handle_ = nullptr;
  }

  std::coroutine_handle<promise_type> handle_;
};

namespace detail {

template <class T>
task<T> task_promise<T>::get_return_object() noexcept {
  return task<T>{std::coroutine_handle<task_promise<T>>::from_promise(*this)};
}
template <class T>
task<T&> task_promise<T&>::get_return_object() noexcept {
  return task<T&>{std::coroutine_handle<task_promise<T&>>::from_promise(*this)};
}
inline task<void> task_promise<void>::get_return_object() noexcept {
  return task<void>{std::coroutine_handle<task_promise<void>>::from_promise(*this)};
}

}  // namespace detail
}  // namespace lanes
