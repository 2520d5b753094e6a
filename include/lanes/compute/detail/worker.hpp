// worker: one compute thread's state, as the fork-join templates see it.
// The hot path of `join` (push, pop) is inline here; finding work elsewhere,
// waiting and sleeping live in src/compute/worker.cpp.
//
// Ownership: the deque's bottom end, the region, the floor and the
// counters are touched only by the worker's own thread (the counters are
// read by metrics); thieves touch the deque's top end.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <lanes/compute/detail/job.hpp>
#include <lanes/compute/detail/work_stealing_deque.hpp>
#include <lanes/detail/event_count.hpp>

namespace lanes::compute::detail {

class pool_state;

class worker {
 public:
  worker(pool_state& owner, std::size_t index, lanes::detail::event_count& wakeups, bool alone) noexcept
      : owner_(owner), index_(index), wakeups_(wakeups), alone_(alone) {}
  worker(const worker&) = delete;
  worker& operator=(const worker&) = delete;

  pool_state& owner() const noexcept { return owner_; }
  std::size_t index() const noexcept { return index_; }

  // Publishes a job that other workers may steal.
  void push(job* j) {
    j->region = region_;
    // The only worker of its pool has no one to wake: it pops the job back
    // itself, or runs it while it waits (work from outside comes through
    // the injector, which notifies on its own).
    deque_.push(j, region_, /*announce=*/!alone_);
    if (!alone_) wakeups_.notify_one();
  }
  // The newest job of this worker's own (above the isolation floor), or nullptr.
  job* pop() noexcept {
    if (deque_.bottom_index() <= isolation_floor_) return nullptr;
    return alone_ ? deque_.pop_unshared() : deque_.pop();  // alone: no thieves (push says the same)
  }

  // Runs other jobs until `l` is set; sleeps (woken by the latch or by new
  // work) when there is nothing to run. Inside isolate() it runs only jobs
  // of the region.
  void wait_until(latch& l) noexcept;
  // The thread's main loop: runs jobs until the pool stops.
  void run_until_stopped() noexcept;
  // A job from this worker's deque, the injector or (if may_steal) another worker.
  job* find_work(bool may_steal = true) noexcept;
  // A job stolen from another worker, or nullptr after one full sweep.
  job* steal() noexcept;

  // isolate(): inside a region, a waiting worker runs only jobs of that
  // region: its own pushed since it entered (above the floor), or stolen
  // ones tagged with the region. A worker that runs a region's job adopts
  // the region meanwhile, so isolation follows the work across threads.
  struct isolation {
    std::uintptr_t region;
    std::int64_t floor;
  };
  isolation enter_region(std::uintptr_t region) noexcept {
    const isolation previous{region_, isolation_floor_};
    region_ = region;
    isolation_floor_ = region == 0 ? -1 : deque_.bottom_index();
    return previous;
  }
  void leave_region(isolation previous) noexcept {
    region_ = previous.region;
    isolation_floor_ = previous.floor;
  }
  bool isolated() const noexcept { return region_ != 0; }
  std::uintptr_t region() const noexcept { return region_; }
  // Runs a job taken from any queue, in the job's region.
  void run(job* j) noexcept {
    count(jobs_run);
    if (j->region == region_) {
      j->run(j);
      return;
    }
    const isolation previous = enter_region(j->region);
    j->run(j);
    leave_region(previous);
  }

  work_stealing_deque<job*>& deque() noexcept { return deque_; }

  std::atomic<std::uint64_t> jobs_run{0};  // written by this worker only (relaxed): metrics
  std::atomic<std::uint64_t> steals{0};
  std::atomic<std::uint64_t> sleeps{0};

 private:
  void count(std::atomic<std::uint64_t>& counter) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  friend void wake_worker(worker& w) noexcept;

  pool_state& owner_;
  std::size_t index_;
  lanes::detail::event_count& wakeups_;                // the pool's: idle workers sleep on it
  bool alone_;                                         // the pool has this one worker
  std::uint64_t victim_seed_ = 0x9e3779b97f4a7c15ULL;  // xorshift state for picking victims
  std::uintptr_t region_ = 0;                          // 0: not isolated
  std::int64_t isolation_floor_ = -1;                  // -1: not isolated
  work_stealing_deque<job*> deque_;
};

// The compute worker this thread is, or nullptr (constant-initialised: no
// TLS wrapper call on access).
inline thread_local worker* tls_worker = nullptr;
inline worker* current_worker() noexcept { return tls_worker; }

}  // namespace lanes::compute::detail
