// signal_set: Unix signals (SIGINT, SIGTERM, SIGHUP...) delivered to an io
// task as an awaitable - no code of yours runs in the signal handler.
//
//   lanes::signal_set stop{SIGINT, SIGTERM};
//   int signo = co_await stop.recv();             // or select(stop.recv(), ...)
//
// How: the first signal_set for a signal installs a handler that only
// does async-signal-safe work (it counts the signal and writes to an
// eventfd per listening set); the set's task waits for that eventfd through
// the runtime's epoll driver (async_fd). It works whatever the threads'
// signal masks are, unlike signalfd, which needs the signal blocked in every
// thread of the process.
//
// - From the first signal_set on, the signal's default action (terminate)
//   no longer happens in this process, even after the set is gone: as in
//   Tokio, the program has said it handles the signal.
// - Several deliveries of one signal before recv() runs come out as one
//   (the kernel coalesces pending signals the same way); different signals
//   come out one per recv(), lowest number first.
// - recv() takes nothing until it returns, so it is cancellation-safe; one
//   task at a time may wait on a set. Sets are independent: each sees
//   every signal it listens to.
// - SIGKILL, SIGSTOP and the synchronous fault signals (SIGSEGV, SIGBUS,
//   SIGFPE, SIGILL, SIGTRAP, SIGSYS) cannot be handled this way:
//   std::invalid_argument. At most 64 sets exist at once (config_error).
#pragma once

#include <array>
#include <coroutine>
#include <cstdint>
#include <initializer_list>

#include <lanes/io/async_fd.hpp>

namespace lanes {

class signal_set {
 public:
  // Made inside an io task (the eventfd registers with its runtime).
  explicit signal_set(std::initializer_list<int> signals);
  signal_set(const signal_set&) = delete;
  signal_set& operator=(const signal_set&) = delete;
  ~signal_set();

  class awaiter {
   public:
    explicit awaiter(signal_set& s) noexcept : set_(s), wait_(s.fd_.readable()) {}
    awaiter(awaiter&& other) noexcept : set_(other.set_), wait_(std::move(other.wait_)) {}  // before it waits only
    awaiter(const awaiter&) = delete;
    awaiter& operator=(const awaiter&) = delete;
    // A signal taken in await_suspend is the task's only at await_resume: a
    // race this is a branch of may be destroyed before (aborted after it
    // woke itself, or a branch listed earlier fired too). Then the set
    // counts it as not seen, for the next recv().
    ~awaiter() {
      if (taken_ != 0 && !resumed_) set_.give_back(taken_);
    }

    bool await_ready() noexcept { return (taken_ = set_.take()) != 0; }
    bool await_suspend(std::coroutine_handle<> h) {
      set_.drain();                                   // what the eventfd says from now on is news...
      if ((taken_ = set_.take()) != 0) return false;  // ...and what came before is counted: nothing registered yet
      return wait_.await_suspend(h);
    }
    // The signal's number.
    int await_resume();

   private:
    signal_set& set_;
    async_fd::readiness wait_;
    int taken_ = 0;
    bool resumed_ = false;
  };

  // The next signal among those of this set.
  awaiter recv() noexcept { return awaiter(*this); }

 private:
  int take() noexcept;                 // a signal delivered since last seen (lowest first), or 0
  void give_back(int signo) noexcept;  // take() returned it, but no task received it
  void drain() noexcept;
  int slot_ = -1;
  std::uint64_t mask_ = 0;  // bit n-1: signal n
  std::array<std::uint64_t, 65> seen_{};
  async_fd fd_;
};

}  // namespace lanes
