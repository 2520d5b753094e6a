// spawn_blocking(f): runs `f` on the blocking lane and lets an io task
// await its result without holding an io worker.
//
//   std::string text = co_await lanes::spawn_blocking([&] { return read_file(path); });
//
// The job starts at once. co_await the handle for f's result, or its
// exception with its type intact; if the job was dropped unrun (the runtime
// shut down first) awaiting throws task_cancelled. A task cancelled while
// it awaits the handle waits until the job has ended, as for offload (the
// job is asked to stop through its std::stop_token if f takes one, and
// dropped if it has not started). Dropping the handle unawaited detaches
// the job: it still runs, its result is discarded - so a job whose handle
// may be dropped must own what it uses (capture by value), and
// `co_await offload_blocking(f, args...)` is the form that starts at the
// await and owns its arguments.
//
// One mechanism with offload: the handle holds the same shared state
// (bridge/detail/offload_state.hpp), and its awaiter is pending work of
// the awaiting task.
#pragma once

#include <coroutine>
#include <type_traits>
#include <utility>

#include <lanes/blocking/blocking_pool.hpp>
#include <lanes/bridge/offload.hpp>
#include <lanes/io/errors.hpp>

namespace lanes {

template <class R>
class blocking_handle {
 public:
  explicit blocking_handle(detail::offload_outcome<R>* state) noexcept : state_(state) {}
  blocking_handle(blocking_handle&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  blocking_handle& operator=(blocking_handle&& other) noexcept {
    if (this != &other) {
      drop();
      state_ = std::exchange(other.state_, nullptr);
    }
    return *this;
  }
  blocking_handle(const blocking_handle&) = delete;
  blocking_handle& operator=(const blocking_handle&) = delete;
  ~blocking_handle() { drop(); }

  class awaiter : private detail::pending_work {
   public:
    explicit awaiter(blocking_handle& h) : pending_work(&awaiter::settle_job), handle_(h) {
      if (h.state_ == nullptr)
        detail::throw_misuse("lanes: co_await on an empty blocking_handle (moved from, or awaited)");
    }
    awaiter(awaiter&& other) noexcept
        : pending_work(&awaiter::settle_job), handle_(other.handle_) {}  // before it waits only
    awaiter(const awaiter&) = delete;
    awaiter& operator=(const awaiter&) = delete;
    ~awaiter() { detail::task_header::unlink_pending(*this); }

    bool await_ready() const noexcept { return handle_.state_->ended(); }
    bool await_suspend(std::coroutine_handle<> h) {
      auto& self = detail::require_current_task("co_await lanes::blocking_handle");
      self.set_resume_point(h);
      detail::waker w = self.make_waker();
      if (!handle_.state_->arm(w)) return false;  // ended meanwhile: resume now
      self.link_pending(*this);
      return true;
    }
    R await_resume() {
      detail::task_header::unlink_pending(*this);
      // The handle is used up: its state is freed once the result is out.
      struct free_on_exit {
        detail::offload_outcome<R>* state;
        ~free_on_exit() { state->free(); }
      } done{std::exchange(handle_.state_, nullptr)};
      return done.state->take();
    }

    // A race that this awaiter lost settles it (race.hpp).
    using pending_work::settle;

   private:
    static bool settle_job(pending_work& node, detail::task_header* arm) noexcept {
      return detail::settle_held(static_cast<awaiter&>(node).handle_.state_, arm);
    }
    blocking_handle& handle_;
  };

  awaiter operator co_await() & { return awaiter(*this); }
  awaiter operator co_await() && { return awaiter(*this); }

 private:
  void drop() noexcept {
    if (state_ != nullptr && state_->detach()) state_->free();
    state_ = nullptr;
  }
  detail::offload_outcome<R>* state_;
};

// Runs `f` on `pool`. A thread that cannot start (std::system_error) or
// memory that runs out (std::bad_alloc) throws here, and then `f` never runs.
template <class F>
auto spawn_blocking(blocking_pool& pool, F&& f, const char* name = nullptr,
                    source_location where = source_location::current()) {
  using work = detail::bound_work_for<F>;
  using R = typename work::result_type;
  static_assert(!std::is_reference_v<R>, "spawn_blocking: return a value or a pointer, not a reference");
  auto* state = new detail::offload_state<work>(work(std::forward<F>(f)), {}, nullptr, {});
  try {
    detail::submit_to_lane(detail::lane_ref{nullptr, &pool}, state, name, where);
  } catch (...) {
    state->discard_unsubmitted();
    throw;
  }
  return blocking_handle<R>(state);
}

// Runs `f` on the blocking lane of the calling task's runtime.
template <class F>
auto spawn_blocking(F&& f, const char* name = nullptr, source_location where = source_location::current()) {
  return spawn_blocking(detail::current_blocking_pool("lanes::spawn_blocking"), std::forward<F>(f), name, where);
}

}  // namespace lanes
