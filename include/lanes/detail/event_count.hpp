// event_count: the one way a lanes thread sleeps until another thread says
// there may be something for it (folly's EventCount, libfork's
// event_count). The io workers, the compute pool and a react thread all
// sleep on one.
//
//   waiter:    key k = ec.prepare_wait();      // "I am about to sleep"
//              look for work once more;
//              found some?  ec.cancel_wait(k);
//              else         ec.wait(k);        // returns at once if notified since prepare_wait
//   notifier:  publish the work;
//              ec.notify_one();  or  ec.notify_all();
//
// Contract. Let a notifier publish P and then call notify_*(), and let a
// waiter's prepare_wait() return k and its look follow. Then the look sees
// P, or that notify sees the waiter counted and advances the epoch past k,
// so that wait(k) returns (at once, or when the notify's futex wake comes).
// No waiter sleeps past a publication made before a notify. wait() may
// also return when nothing was published for it (a notify meant for
// another waiter, notify_all): the waiter looks again. A notify that sees
// no waiter costs one fence and one load of a line that changes only when
// a thread falls asleep or wakes - the common case of a busy pool.
//
// Proof (fence form, detail/ordering.hpp). Waiter: W1 an RMW on waiters_,
// a seq_cst fence F_W, W2 a load of epoch_ (the key), then the look W3.
// Notifier: N1 the publication, a seq_cst fence F_N, N2 a load of
// waiters_, and if that saw a waiter, N3 an RMW on epoch_ and the futex
// wake. The fences are ordered in the single total order S.
//  - F_N before F_W: N1 is sequenced before F_N and W3 after F_W, so W3
//    sees N1 (or a later value).
//  - F_W before F_N: W1 is sequenced before F_W and N2 after F_N, so N2
//    reads W1 or a later value of waiters_; the waiter leaves waiters_
//    only after its wait or cancel, so N2 sees it counted and N3 advances
//    the epoch. If W2 read a value older than N3, the futex wait on k
//    returns at once or is woken by N3's wake (the kernel compares and
//    sleeps atomically). If W2 read N3's value or a later one, k is already
//    past it, and N3 (release) happens-before W3 (W2 is an acquire), so
//    W3 sees N1.
// Seq_cst form (ThreadSanitizer, which does not model fences): no fences;
// W1, W2, N2 and N3 are seq_cst, and so must N1 and the loads of W3 be
// (the callers say where). In their single total order, if N2 comes before
// W1 then N1 comes before W3, which sees it; otherwise N2 comes after W1
// and sees the waiter. The rest is as above.  ∎
//
// A waiter that blocks somewhere other than the futex (an io worker in the
// driver's epoll_wait) prepares with `blocks_elsewhere`: a notify that sees
// it says so (notified::elsewhere) and the notifier wakes that place
// itself (the driver's eventfd, whose write is not lost if it comes
// before the epoll_wait). Such a waiter checks ready(k) before it blocks
// and calls finish_wait(k) after. One waiter per event count may block
// elsewhere at a time.
//
// The atomics are a template parameter so that tests/model can run this
// very code under an exhaustive interleaving checker.
#pragma once

#include <atomic>
#include <cstdint>

#include <lanes/detail/ordering.hpp>

namespace lanes::detail {

template <class Atomics>
class basic_event_count {
  template <class T>
  using atomic = typename Atomics::template atomic<T>;

  static constexpr std::uint32_t futex_waiter = 1;
  static constexpr std::uint32_t elsewhere_waiter = std::uint32_t{1} << 31;

 public:
  enum class wait_site { futex, elsewhere };

  class key {
   public:
    std::uint32_t epoch() const noexcept { return epoch_; }

   private:
    friend basic_event_count;
    key(std::uint32_t epoch, std::uint32_t unit) noexcept : epoch_(epoch), unit_(unit) {}
    std::uint32_t epoch_;
    std::uint32_t unit_;  // what prepare_wait added to waiters_
  };

  // What a notify found.
  struct notified {
    bool any = false;        // a waiter was counted: the epoch advanced
    bool elsewhere = false;  // among them one blocked elsewhere: wake it there
  };

  basic_event_count() = default;
  basic_event_count(const basic_event_count&) = delete;
  basic_event_count& operator=(const basic_event_count&) = delete;

  // Waiter: counts itself (W1), then reads the key (W2). The caller then
  // looks for work once more (W3), with seq_cst loads in the seq_cst form.
  key prepare_wait(wait_site site = wait_site::futex) noexcept {
    const std::uint32_t unit = site == wait_site::futex ? futex_waiter : elsewhere_waiter;
    waiters_.fetch_add(unit, std::memory_order_seq_cst);
#if !LANES_SEQ_CST_FORM
    Atomics::seq_cst_fence();
#endif
    return key(epoch_.load(std::memory_order_seq_cst), unit);
  }
  // Waiter: found work after prepare_wait; no wait follows.
  void cancel_wait(key k) noexcept { leave(k); }
  // Waiter: sleeps on the futex until the epoch is past `k` (a futex waiter).
  void wait(key k) noexcept {
    while (!ready(k)) epoch_.wait(k.epoch_, std::memory_order_acquire);
    leave(k);
  }
  // A waiter that blocks elsewhere: whether a notify came since `k` (then
  // it must not block), and its leaving once it is back.
  bool ready(key k) const noexcept { return epoch_.load(std::memory_order_acquire) != k.epoch_; }
  void finish_wait(key k) noexcept { leave(k); }

  // Notifier, after publishing: wakes one futex waiter (or says that the
  // waiter blocks elsewhere) if any waiter is counted.
  notified notify_one() noexcept { return notify<false>(); }
  // The same, waking every futex waiter.
  notified notify_all() noexcept { return notify<true>(); }

  // How many futex waiters are counted now (a snapshot, for metrics).
  std::uint32_t waiters() const noexcept { return waiters_.load(std::memory_order_relaxed) & ~elsewhere_waiter; }

 private:
  // The waiter of `k` is no longer counted (relaxed: only notifiers'
  // decisions to advance the epoch read the count).
  void leave(key k) noexcept { waiters_.fetch_sub(k.unit_, std::memory_order_relaxed); }

  template <bool All>
  notified notify() noexcept {
#if LANES_SEQ_CST_FORM
    const std::uint32_t seen = waiters_.load(std::memory_order_seq_cst);  // N2
#else
    Atomics::seq_cst_fence();                                             // F_N
    const std::uint32_t seen = waiters_.load(std::memory_order_relaxed);  // N2
#endif
    if (seen == 0) return {};
    epoch_.fetch_add(1, std::memory_order_seq_cst);  // N3
    if ((seen & ~elsewhere_waiter) != 0) {
      if constexpr (All) {
        epoch_.notify_all();
      } else {
        epoch_.notify_one();
      }
    }
    return {true, (seen & elsewhere_waiter) != 0};
  }

  alignas(64) atomic<std::uint32_t> waiters_{0};
  alignas(64) atomic<std::uint32_t> epoch_{0};
};

using event_count = basic_event_count<std_atomics>;

}  // namespace lanes::detail
