// fd_operation: one non-blocking system call on a descriptor registered
// with the runtime's driver (async_fd::async_io, the socket types),
// awaited in place: it is tried at once; if it would block, the task waits
// for readiness and tries again when woken. It is the one loop behind
// every read, write, accept and connect of the io lane.
//
// Readiness (fd_readiness.hpp): the call is made only while the driver's
// last word on the direction is "ready"; a call that finds it used up
// (EAGAIN, or a short read or write where the Attempt says that drains
// it, `drained()`) clears it, so the next operation waits at once instead
// of making a call that would say EAGAIN.
//
// Why it is cancellation-safe: the call runs only inside await_ready() or
// await_resume(), that is, only while the task runs and will use what it
// returns. A wait that is cancelled, or loses a select or a timeout, has
// made no call, so it took nothing (no byte read, no connection accepted).
// When the call cannot be made before suspending (the direction turned
// ready just as the task armed, or the cooperative budget is spent), the
// task wakes itself and makes the call in await_resume, after asking the
// kernel that the direction is really ready (poll(2), no wait): a stale
// ready bit must not send await_resume into an EAGAIN it cannot wait out.
//
// The cooperative budget: an attempt spends one unit. With the budget
// spent, the task yields first if the descriptor is ready, so a peer that
// always has data cannot keep the worker from its other tasks; if it is
// not ready, the task waits for readiness as usual.
//
// A registration removed while the task waits (the socket closed or
// destroyed under it) wakes it with ECANCELED; the call is not made, so a
// descriptor number the process has reused since is never touched. A wake
// for readiness followed by EAGAIN means another task took what was ready
// (two tasks on one direction at once): a runtime_misuse, since the wait
// cannot start again inside await_resume.
#pragma once

#include <sys/types.h>
#include <cerrno>
#include <coroutine>
#include <cstdint>
#include <string>
#include <utility>

#include <lanes/io/detail/runtime_access.hpp>
#include <lanes/io/errors.hpp>

namespace lanes::detail {

inline constexpr unsigned fd_readable = 0;
inline constexpr unsigned fd_writable = 1;

// A system call's outcome: its non-negative return value, or the errno it failed with.
struct fd_result {
  ssize_t value = 0;
  int error = 0;  // 0: succeeded
  explicit operator bool() const noexcept { return error == 0; }
};

[[noreturn]] void throw_readiness_taken(const char* what);

// Whether `direction` of `r` is ready: the driver's bit says so and the
// kernel agrees (poll(2), no wait). A bit the kernel does not confirm was
// stale and is cleared (false); an event that came meanwhile is looked at again.
// A reading side the ring drives asks the registry instead: the kernel's
// buffer is empty while the ring has taken what came.
inline bool fd_really_ready(const fd_registration& r, unsigned direction) noexcept {
  fd_readiness& readiness = *r.readiness;
  if (direction == fd_readable && readiness.from_ring()) return fd_ring_ready(r);
  for (;;) {
    const auto seen = readiness.load(direction);
    if (!fd_readiness::ready(seen)) return false;
    if (fd_ready_now(r.fd, direction)) return true;
    if (readiness.clear(direction, seen)) return false;
  }
}

// Attempt: ssize_t() making one non-blocking call (-1 and errno on
// failure); optionally `bool drained(ssize_t n) const`: a call that
// returned n left the direction used up (a short read or write on a stream).
template <class Attempt>
class [[nodiscard]] fd_operation {
 public:
  // `r.table` null: the descriptor is not registered (closed, moved from):
  // EBADF. `what` names the operation for a misuse report ("lanes::net read").
  fd_operation(const fd_registration& r, unsigned direction, const char* what, Attempt attempt)
      : registration_(r), direction_(direction), what_(what), attempt_(std::move(attempt)) {}
  fd_operation(fd_operation&& other) noexcept  // before it is awaited only
      : registration_(other.registration_),
        direction_(other.direction_),
        what_(other.what_),
        attempt_(std::move(other.attempt_)) {}
  fd_operation(const fd_operation&) = delete;
  fd_operation& operator=(const fd_operation&) = delete;
  fd_operation& operator=(fd_operation&&) = delete;
  ~fd_operation() {
    if (waiting_ != nullptr) fd_disarm(registration_, direction_, waiting_);
  }

  bool await_ready() {
    if (registration_.table == nullptr) return finish({-1, EBADF});
    if (!coop_consume()) {  // out of budget: await_suspend decides
      budget_spent_ = true;
      return false;
    }
    return try_once();
  }

  bool await_suspend(std::coroutine_handle<> h) {
    auto& self = require_current_task(what_);
    self.set_resume_point(h);
    waker w = self.make_waker();
    if (budget_spent_ && fd_really_ready(registration_, direction_)) {  // ready, but the budget is spent: yield first
      std::move(w).wake();
      return true;
    }
    for (;;) {
      switch (fd_arm(registration_, direction_, w, &removed_)) {
        case fd_arm_result::waiting:
          waiting_ = &self;
          return true;
        case fd_arm_result::ready:  // an event came since the call said EAGAIN
          if (!fd_really_ready(registration_, direction_)) continue;
          std::move(w).wake();  // the call is made in await_resume, never here
          return true;
        case fd_arm_result::gone:
          return !finish({-1, EBADF});
      }
    }
  }

  fd_result await_resume() {
    waiting_ = nullptr;
    if (done_) return outcome_;
    if (removed_) return {-1, ECANCELED};
    if (!try_once()) throw_readiness_taken(what_);
    return outcome_;
  }

 protected:
  Attempt& attempt() noexcept { return attempt_; }  // what the call left behind (an accepted fd, an address)

 private:
  bool finish(fd_result r) noexcept {
    outcome_ = r;
    done_ = true;
    return true;
  }
  // One call while the direction is ready (again on EINTR, or when an
  // event came while it said EAGAIN): true when it did not block.
  bool try_once() {
    fd_readiness& readiness = *registration_.readiness;
    for (;;) {
      const auto seen = readiness.load(direction_);
      if (!fd_readiness::ready(seen)) return false;
      const ssize_t n = attempt_();
      if (n >= 0) {
        if constexpr (requires(const Attempt& a) { a.drained(n); }) {
          if (attempt_.drained(n)) readiness.clear(direction_, seen);
        }
        return finish({n, 0});
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return finish({-1, errno});
      if (readiness.clear(direction_, seen)) return false;
    }
  }
  fd_registration registration_;
  unsigned direction_;
  const char* what_;
  Attempt attempt_;
  fd_result outcome_;
  bool done_ = false;
  bool removed_ = false;                  // set by the registry (under its lock) if removed while waiting
  bool budget_spent_ = false;             // await_ready made no attempt: the cooperative budget was spent
  const task_header* waiting_ = nullptr;  // armed for this task
};

}  // namespace lanes::detail
