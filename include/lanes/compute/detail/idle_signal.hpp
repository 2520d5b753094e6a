// idle_signal: how a compute pool's idle workers sleep and how new work
// wakes one of them.
//
// Lemma (no lost wake-up). Let P publish a job J (a deque push, or the
// injector's size) and then call notify_new_work(); let W go to sleep by
// announce() -> scan every queue -> sleep(epoch). Then W does not sleep
// while J sits unclaimed.
// Proof. P: publish J; [seq_cst fence]; load `sleepers_`. W: seq_cst RMW on
// `sleepers_`; [seq_cst fence]; load `epoch_`; scan. The two fences order
// P's publish-before-load against W's increment-before-scan, so either W's
// scan sees J (and W runs it instead of sleeping), or P's load sees W
// counted and bumps `epoch_`. In the second case, if W loaded `epoch_`
// before the bump its futex wait returns at once or is woken by
// notify_one; if after, the bump's release pairs with W's load, so the scan
// that follows sees J. Either way W does not sleep past J.
// The seq_cst form (ordering.hpp; ThreadSanitizer builds) drops the fences
// and makes the publication, the loads of `sleepers_` and `epoch_` and the
// scan seq_cst: in their single total order, if P's load of `sleepers_`
// precedes W's RMW then so does P's publication, which W's later scan reads;
// otherwise P's load follows the RMW and sees W. The rest is as above.  ∎
//
// Cost on the fork path: one fence and one load of a line that only
// changes when a worker falls asleep or wakes, i.e. nearly never while
// every worker is busy.
#pragma once

#include <atomic>
#include <cstdint>

#include <lanes/detail/ordering.hpp>

namespace lanes::compute::detail {

class idle_signal {
 public:
  // After publishing a job.
  void notify_new_work() noexcept {
#if LANES_SEQ_CST_FORM
    if (sleepers_.load(std::memory_order_seq_cst) != 0) wake_one();
#else
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_relaxed) != 0) wake_one();
#endif
  }
  void wake_one() noexcept {
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    epoch_.notify_one();
  }
  void wake_all() noexcept {
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    epoch_.notify_all();
  }

  // The sleeper: announce, then scan every queue once more, then either
  // cancel_sleep() (found work) or sleep(the epoch announce returned).
  std::uint32_t announce() noexcept {
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
#if !LANES_SEQ_CST_FORM
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
    return epoch_.load(std::memory_order_seq_cst);
  }
  void sleep(std::uint32_t epoch) noexcept {
    epoch_.wait(epoch, std::memory_order_seq_cst);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }
  void cancel_sleep() noexcept { sleepers_.fetch_sub(1, std::memory_order_relaxed); }
  std::uint32_t sleepers() const noexcept { return sleepers_.load(std::memory_order_relaxed); }

 private:
  alignas(64) std::atomic<std::uint32_t> sleepers_{0};
  alignas(64) std::atomic<std::uint32_t> epoch_{0};
};

}  // namespace lanes::compute::detail
