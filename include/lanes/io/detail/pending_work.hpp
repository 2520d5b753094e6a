// pending_work: work that runs outside the io lane for a task (on the
// compute or the blocking lane) and may read the task's frame: the lambda
// of `co_await offload([&] { ... })` borrows the task's locals. While such
// work runs, the frame must not be destroyed, whatever cancels the task.
//
// The protocol (the invariant: a frame is destroyed only when no work that
// was handed out from it is still running):
// - An awaiter that hands work to another lane links a node into its
//   task's list (task_header::link_pending) in await_suspend, and unlinks
//   it in await_resume or its destructor. The list is read and written
//   only by the thread that holds the task's RUNNING bit (or by shutdown,
//   once the workers have stopped), so it needs no lock.
// - settle(arm) asks the work to stop (it sees a std::stop_token if it
//   takes one) and reports whether nothing of it is left running. Work
//   still queued is dropped there and then (true). With `arm` set and the
//   work still running, the node stores a waker of `arm` (made by the
//   caller, which holds RUNNING) that the work wakes when it ends,
//   replacing any waker an earlier settle stored.
// - A cancelled task (abort, a timeout or select over the task, runtime
//   shutdown) has its frame destroyed only once every node settles; until
//   then it stays suspended, and each wake re-settles (the scheduler's
//   run_one). Shutdown polls, up to the runtime's shutdown timeout.
// - A race whose losing branch is such an awaiter settles it before the
//   race returns (race.hpp), so a select or a timeout never resumes its
//   task while a loser's work still reads the task's locals.
#pragma once

namespace lanes::detail {

class task_header;

class pending_work {
 public:
  // See settle(): `arm` is the task to make a waker of, or nullptr.
  using settle_fn = bool (*)(pending_work& self, task_header* arm) noexcept;

  explicit pending_work(settle_fn fn) noexcept : settle_(fn) {}
  pending_work(const pending_work&) = delete;
  pending_work& operator=(const pending_work&) = delete;

  // True when nothing of the work is left running (see the protocol).
  bool settle(task_header* arm) noexcept { return settle_(*this, arm); }

 private:
  friend class task_header;
  settle_fn settle_;
  task_header* task_ = nullptr;  // the task whose list holds it
  pending_work* prev_ = nullptr;
  pending_work* next_ = nullptr;
};

}  // namespace lanes::detail
