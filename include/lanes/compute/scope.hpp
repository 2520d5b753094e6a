// scope(body): structured spawning. Jobs spawned on the task_scope may
// borrow anything that outlives the scope() call (the caller's stack
// included): scope returns only when the body and every job spawned in it,
// transitively, are done.
//
//   std::vector<int> out(n);
//   lanes::compute::scope([&](lanes::compute::task_scope& s) {
//     for (std::size_t i = 0; i < n; ++i) s.spawn([&, i] { out[i] = work(i); });
//   });
//
// A spawned callable takes no argument or a task_scope& (to spawn more).
// Exceptions: every job still runs; the first exception thrown by the body
// or by any job is rethrown by scope() once all are done.
// From a thread outside any pool, scope runs inside the default pool and
// blocks the caller until done.
#pragma once

#include <atomic>
#include <exception>
#include <type_traits>
#include <utility>

#include <lanes/compute/detail/entry.hpp>
#include <lanes/compute/detail/job.hpp>
#include <lanes/compute/detail/worker.hpp>

namespace lanes::compute {

class task_scope {
 public:
  task_scope(const task_scope&) = delete;
  task_scope& operator=(const task_scope&) = delete;

  template <class F>
  void spawn(F&& f) {
    using stored = std::decay_t<F>;
    auto* j = new scoped_job<stored>(*this, stored(std::forward<F>(f)));
    pending_.add();
    detail::worker* w = detail::current_worker();
    if (w != nullptr && &w->owner() == &state_) {
      w->push(j);
    } else {
      detail::inject(state_, j);
    }
  }

 private:
  template <class F>
  friend auto scope(F&& body);

  task_scope(detail::pool_state& r, detail::worker& w) noexcept : state_(r), pending_(&w, 1) {}

  void record(std::exception_ptr e) noexcept {
    bool expected = false;
    if (failed_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) error_ = std::move(e);
  }

  // Owns its callable; deleted before the scope's count drops, since the
  // callable may refer to the scope's frame.
  template <class F>
  class scoped_job : public detail::job {
   public:
    scoped_job(task_scope& s, F&& f) : job(&scoped_job::execute), scope_(s), f_(std::move(f)) {}

   private:
    static void execute(detail::job* self) noexcept {
      auto* j = static_cast<scoped_job*>(self);
      task_scope& s = j->scope_;
      try {
        if constexpr (std::is_invocable_v<F&, task_scope&>) {
          j->f_(s);
        } else {
          j->f_();
        }
      } catch (...) {
        s.record(std::current_exception());
      }
      delete j;
      s.pending_.done();
    }
    task_scope& scope_;
    F f_;
  };

  template <class F>
  auto run(detail::worker& w, F& body) {
    using result_type = std::invoke_result_t<F&, task_scope&>;
    detail::job_result<result_type> result;
    auto call = [&]() -> decltype(auto) { return body(*this); };
    result.run(call);
    if (result.error) record(result.error);
    pending_.done();  // the body's own count
    w.wait_until(pending_.as_latch());
    if (failed_.load(std::memory_order_acquire)) std::rethrow_exception(error_);
    return result.take();
  }

  detail::pool_state& state_;
  detail::count_latch pending_;
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;  // written once, by the thread that set failed_
};

template <class F>
auto scope(F&& body) {
  auto in_pool = [&body]() {
    detail::worker& w = *detail::current_worker();
    task_scope s(w.owner(), w);
    return s.run(w, body);
  };
  if (detail::current_worker() != nullptr) return in_pool();
  return detail::install(detail::default_pool_state(), in_pool);
}

}  // namespace lanes::compute
