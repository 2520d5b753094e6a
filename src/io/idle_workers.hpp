// idle_workers: which io workers sleep, and how many are searching for work.
//
// Invariant (no lost wake-ups): a worker goes to sleep only after it has
// (1) put itself on the sleeper list, (2) stopped counting as searching (an
// RMW on num_searching), then (3) looked at every queue once more. Whoever
// makes work available (4) pushes it, then (5) reads num_searching and the
// sleepers. Two forms (lanes/detail/ordering.hpp):
//  - fence form (release builds): the worker puts a seq_cst fence between
//    (2) and (3) (scheduler::park), the producer one between (4) and (5),
//    and (5) is a plain load. The fences are ordered in S: if the worker's
//    comes first, (5) sees (1) and (2) and wakes a sleeper; if the
//    producer's does, (3) sees (4). Either way the work is found.
//  - seq_cst form (ThreadSanitizer, which does not model fences): (5) reads
//    num_searching with an RMW (fetch_add of 0). The two RMWs are ordered in
//    num_searching's modification order: if (5) comes after the last
//    searcher's (2), it reads zero and the producer wakes a sleeper from the
//    list; if it comes first, the last searcher's (2) reads from it, which
//    makes (4) visible to that searcher's (3).
// Why the fence form: (5) runs on every push of a worker's own queue (each
// yield, each spawn), and an RMW takes num_searching's cache line
// exclusive, so two busy workers would pass it back and forth on every
// push; a load leaves the line shared in both caches.
//
// Searching is bounded: at most half the workers search at once (Tokio's
// rule), so a burst of wake-ups does not turn into a herd of stealers.
// Sleepers are woken last-in first-out: the most recently idle worker has
// the warmest cache (folly's observation).
#pragma once

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <vector>

#include <lanes/detail/ordering.hpp>

namespace lanes::detail {

class idle_workers {
 public:
  explicit idle_workers(unsigned workers) : workers_(workers) { sleepers_.reserve(workers); }

  bool try_start_searching() noexcept {
    const auto searching = num_searching_.load(std::memory_order_seq_cst);
    if (2 * searching >= workers_ && workers_ > 1) return false;
    num_searching_.fetch_add(1, std::memory_order_seq_cst);
    return true;
  }
  // Returns true when the caller was the last searcher.
  bool stop_searching() noexcept { return num_searching_.fetch_sub(1, std::memory_order_seq_cst) == 1; }
  unsigned searching() const noexcept { return num_searching_.load(std::memory_order_seq_cst); }

  void add_sleeper(unsigned worker) {
    std::lock_guard lock(mutex_);
    sleepers_.push_back(worker);
    num_sleepers_.store(static_cast<unsigned>(sleepers_.size()), std::memory_order_seq_cst);
  }
  // True when the worker was still listed (nobody woke it on purpose).
  bool remove_sleeper(unsigned worker) {
    std::lock_guard lock(mutex_);
    const auto it = std::find(sleepers_.begin(), sleepers_.end(), worker);
    if (it == sleepers_.end()) return false;
    sleepers_.erase(it);
    num_sleepers_.store(static_cast<unsigned>(sleepers_.size()), std::memory_order_seq_cst);
    return true;
  }
  // The worker to wake for new work, counted as searching from now on; none
  // when a worker is already searching or nobody sleeps.
  std::optional<unsigned> claim_sleeper_for_work() {
#if LANES_SEQ_CST_FORM
    if (num_searching_.fetch_add(0, std::memory_order_seq_cst) != 0) return std::nullopt;  // (5)
#else
    dekker_fence();
    if (num_searching_.load(std::memory_order_acquire) != 0) return std::nullopt;  // (5)
#endif
    if (num_sleepers_.load(std::memory_order_seq_cst) == 0) return std::nullopt;
    std::lock_guard lock(mutex_);
    if (sleepers_.empty() || num_searching_.load(std::memory_order_seq_cst) != 0) return std::nullopt;
    const unsigned worker = sleepers_.back();
    sleepers_.pop_back();
    num_sleepers_.store(static_cast<unsigned>(sleepers_.size()), std::memory_order_seq_cst);
    num_searching_.fetch_add(1, std::memory_order_seq_cst);
    return worker;
  }
  unsigned sleepers() const noexcept { return num_sleepers_.load(std::memory_order_seq_cst); }

 private:
  const unsigned workers_;
  std::atomic<unsigned> num_searching_{0};
  std::atomic<unsigned> num_sleepers_{0};
  std::mutex mutex_;
  std::vector<unsigned> sleepers_;
};

}  // namespace lanes::detail
