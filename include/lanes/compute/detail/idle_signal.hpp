// idle_signal: how a compute pool's idle workers sleep and how new work
// wakes one of them.
//
// Lemma (no lost wake-up). Let P publish a job J with a seq_cst store (a
// deque push with `announce`, or the injector's size) and then call
// notify_new_work(); let W go to sleep by announce() -> scan every queue
// with seq_cst loads -> sleep(epoch). Then W does not sleep while J sits
// unclaimed.
// Proof. All the operations named are seq_cst, so they fall in one total
// order S consistent with each thread's program order. P: store J, then
// load `sleepers_`. W: RMW on `sleepers_`, then load `epoch_`, then the
// scan's loads. If P's load of `sleepers_` precedes W's RMW in S, P's store
// of J does too, and W's scan - later in S - reads J (or a later state of
// that queue): W runs it instead of sleeping. Otherwise P's load follows
// W's RMW and sees W counted, and P bumps `epoch_`; if W loaded `epoch_`
// before the bump, its futex wait returns at once or is woken by
// notify_one, and if after, the bump precedes W's scan in S, and so does
// J. Either way W does not sleep past J.  ∎
//
// Seq_cst operations rather than fences: the same cost on x86 (the store
// is an xchg, the loads plain), and ThreadSanitizer checks them (it does
// not model standalone fences). Cost on the fork path: the xchg, and one
// load of a line that only changes when a worker falls asleep or wakes.
#pragma once

#include <atomic>
#include <cstdint>

namespace lanes::compute::detail {

class idle_signal {
 public:
  // After publishing a job with a seq_cst store.
  void notify_new_work() noexcept {
    if (sleepers_.load(std::memory_order_seq_cst) != 0) wake_one();
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
