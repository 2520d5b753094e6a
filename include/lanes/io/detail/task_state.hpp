// task_state: a spawned task's state word, and every change of it as one
// named transition that returns what the caller must do next (Tokio's
// runtime/task/state.rs). Nothing else changes the word: the scheduler's
// task harness (src/io/task_harness.hpp: poll, complete, cancel), the
// waker, abort, the join_handle and block_on call these and act on the
// outcome.
//
// The word: references in the high 32 bits, the suspension generation in
// bits 8..31, the flags below in bits 0..7.
//
//               wake()                    start_poll()
//   idle ------------------> SCHEDULED ------------------> RUNNING
//    ^                           ^                          |  |  |
//    |      end_poll(): idle     |  end_poll(): rescheduled |  |  | wake(): RUNNING|NOTIFIED
//    +---------------------------+--------------------------+  |  +------------+
//                                                               | complete_now()
//                                                               v
//                                                            COMPLETE
//
//   abort():             sets CANCELLED; an idle task also becomes SCHEDULED,
//                        so that a worker's start_poll() sees it (outcome cancel)
//   claim_for_cancel():  idle or SCHEDULED -> RUNNING|CANCELLED, for a caller
//                        that destroys the frame itself (cancel_now, shutdown)
//   end_poll() with CANCELLED set: outcome cancelled - the harness settles the
//                        work the task handed out, then completes it
//
// Every transition is an acq_rel CAS (or RMW): the holder of RUNNING owns
// the frame and the header's running-thread fields, and these operations
// order one holder's accesses before the next one's. COMPLETE is final.
#pragma once

#include <atomic>
#include <cstdint>

namespace lanes::detail {

class task_state {
 public:
  static constexpr std::uint64_t running = 1U << 0;
  static constexpr std::uint64_t scheduled = 1U << 1;
  static constexpr std::uint64_t notified = 1U << 2;
  static constexpr std::uint64_t complete = 1U << 3;
  static constexpr std::uint64_t cancelled = 1U << 4;
  static constexpr std::uint64_t join_interest = 1U << 5;    // a join_handle exists
  static constexpr std::uint64_t join_waker = 1U << 6;       // the joiner's waker is stored
  static constexpr std::uint64_t blocking_joiner = 1U << 7;  // a thread waits in block_on: notify the word
  // Bits 8..31: the suspension generation. It advances each time the task
  // is resumed; a waker carries the generation of the suspension it was
  // made for, and a wake with an older generation is ignored. So a task may
  // wait on several things at once (a race, a timeout) and the losers' late
  // wake-ups can never resume it at a later, unrelated suspension point. 24
  // bits: a stale waker would have to be held across 16 million resumptions.
  static constexpr std::uint64_t generation_one = std::uint64_t{1} << 8;
  static constexpr std::uint64_t generation_mask = ((std::uint64_t{1} << 24) - 1) << 8;
  // Bits 0..7 of a waker's generation word are free (the generation starts
  // at bit 8): a waker made while a race arms one of its branches carries
  // that branch's race bit there, plus one (0: not a race branch). race.hpp.
  static constexpr std::uint64_t race_tag_mask = 0xFF;
  static constexpr unsigned max_race_bits = 32;
  static constexpr std::uint64_t ref_one = std::uint64_t{1} << 32;
  static constexpr std::uint64_t flag_mask = ref_one - 1;  // flags and generation

  // A new spawn: SCHEDULED, a join_handle, and the references of the live
  // list, the join_handle and the first run-queue entry.
  task_state() noexcept = default;
  task_state(const task_state&) = delete;
  task_state& operator=(const task_state&) = delete;

  std::uint64_t load() const noexcept { return word_.load(std::memory_order_acquire); }
  bool is_complete() const noexcept { return (load() & complete) != 0; }
  // The current suspension's generation; stable for the thread holding RUNNING.
  std::uint64_t generation() const noexcept { return word_.load(std::memory_order_relaxed) & generation_mask; }

  // --- references ---
  void ref() noexcept { word_.fetch_add(ref_one, std::memory_order_relaxed); }
  // A reference for a new waker; returns the generation it wakes.
  std::uint64_t ref_for_waker() noexcept {
    return word_.fetch_add(ref_one, std::memory_order_relaxed) & generation_mask;
  }
  // Drops `count` references; true when they were the last (free the task).
  [[nodiscard]] bool unref(std::uint64_t count = 1) noexcept {
    const auto before = word_.fetch_sub(count * ref_one, std::memory_order_acq_rel);
    return (before & ~flag_mask) == count * ref_one;
  }

  // --- the poll ---
  enum class poll_start {
    poll,    // RUNNING now: resume the frame
    cancel,  // RUNNING now, and CANCELLED was set: destroy the frame instead
    stale,   // a queue entry for a task claim_for_cancel() took: drop the entry's reference
  };
  // SCHEDULED -> RUNNING with a new generation (the last suspension's
  // wakers become stale), adding `spare_refs` references in the same CAS
  // (task_header::grant_spare_refs).
  [[nodiscard]] poll_start start_poll(std::uint64_t spare_refs) noexcept {
    std::uint64_t s = word_.load(std::memory_order_acquire);
    for (;;) {
      if ((s & (running | complete)) != 0) return poll_start::stale;
      const auto next_generation = (s + generation_one) & generation_mask;
      const auto next = ((s & ~(scheduled | generation_mask)) | running | next_generation) + spare_refs * ref_one;
      if (word_.compare_exchange_weak(s, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
        return (s & cancelled) != 0 ? poll_start::cancel : poll_start::poll;
      }
    }
  }

  enum class poll_end {
    idle,           // suspended: the running reference and `unused` spare ones are dropped
    idle_last_ref,  // the same, but one of them was the last: the caller unrefs (and frees)
    rescheduled,    // woken while it ran: SCHEDULED again, the running reference is the queue's
    cancelled,      // CANCELLED is set: nothing changed; the harness cancels the task
  };
  // RUNNING -> idle, or SCHEDULED if NOTIFIED. With `cancel_settled` false
  // a CANCELLED flag stops it (outcome cancelled); once the harness has
  // settled the task's work for this poll it calls again with true, and the
  // task suspends with CANCELLED still set: the wake that the settle armed
  // brings it back (start_poll: cancel).
  [[nodiscard]] poll_end end_poll(std::uint64_t unused, bool cancel_settled) noexcept {
    std::uint64_t s = word_.load(std::memory_order_acquire);
    for (;;) {
      if ((s & cancelled) != 0 && !cancel_settled) return poll_end::cancelled;
      if ((s & notified) != 0) {
        const auto next = ((s & ~(running | notified)) | scheduled) - unused * ref_one;
        if (word_.compare_exchange_weak(s, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
          return poll_end::rescheduled;
        }
        continue;
      }
      // The running reference and the unused spare ones are dropped in this
      // CAS, unless they are the last (the live list's normally keeps the
      // task until complete()): then one is kept for the caller to unref.
      const std::uint64_t drop = (1 + unused) * ref_one;
      const bool last = (s & ~flag_mask) == drop;
      const std::uint64_t next = (s & ~running) - (last ? drop - ref_one : drop);
      if (word_.compare_exchange_weak(s, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
        return last ? poll_end::idle_last_ref : poll_end::idle;
      }
    }
  }

  // Whom a completion must tell.
  class completion {
   public:
    // A joiner's waker is stored: completion owns it now.
    bool wake_joiner() const noexcept { return (before_ & join_waker) != 0; }
    // A thread waits in block_on on the word.
    bool notify_blocking() const noexcept { return (before_ & blocking_joiner) != 0; }
    // No join_handle is left: a failure is unobserved.
    bool handle_dropped() const noexcept { return (before_ & join_interest) == 0; }

   private:
    friend task_state;
    explicit completion(std::uint64_t before) noexcept : before_(before) {}
    std::uint64_t before_;  // the word before COMPLETE
  };
  // RUNNING -> COMPLETE (clearing RUNNING, NOTIFIED and SCHEDULED).
  [[nodiscard]] completion complete_now() noexcept {
    std::uint64_t s = word_.load(std::memory_order_acquire);
    while (!word_.compare_exchange_weak(s, (s | complete) & ~(running | notified | scheduled),
                                        std::memory_order_acq_rel, std::memory_order_acquire)) {
    }
    return completion(s);
  }
  // For a block_on caller waiting on the word (futex): wakes it.
  void notify_blocking_joiner() noexcept { word_.notify_all(); }

  // --- wakes ---
  enum class wake_outcome {
    ignored,    // complete, already scheduled, or a stale generation: drop the waker's reference
    notified,   // running: it is rescheduled when the poll ends; drop the reference
    scheduled,  // SCHEDULED now: the waker's reference goes into a run queue
  };
  // A look before wake(): false when a wake of `generation` would be
  // ignored now. A task seen complete here is not touched further (its
  // runtime may be gone).
  bool may_wake(std::uint64_t generation) const noexcept { return !ignores_wake(load(), generation); }
  [[nodiscard]] wake_outcome wake(std::uint64_t generation) noexcept {
    std::uint64_t s = word_.load(std::memory_order_acquire);
    for (;;) {
      if (ignores_wake(s, generation)) return wake_outcome::ignored;
      const std::uint64_t flag = (s & running) != 0 ? notified : scheduled;
      if (word_.compare_exchange_weak(s, s | flag, std::memory_order_acq_rel, std::memory_order_acquire)) {
        return flag == notified ? wake_outcome::notified : wake_outcome::scheduled;
      }
    }
  }

  // --- cancellation ---
  enum class abort_outcome {
    nothing,    // complete, or already cancelled
    flagged,    // running or queued: whoever runs or pops it next sees CANCELLED
    scheduled,  // it waited: SCHEDULED now, and the caller queues it (with a new reference)
  };
  [[nodiscard]] abort_outcome abort() noexcept {
    std::uint64_t s = word_.load(std::memory_order_acquire);
    for (;;) {
      if ((s & (complete | cancelled)) != 0) return abort_outcome::nothing;
      const bool waiting = (s & (running | scheduled)) == 0;
      const std::uint64_t next = s | cancelled | (waiting ? scheduled : 0);
      if (word_.compare_exchange_weak(s, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
        return waiting ? abort_outcome::scheduled : abort_outcome::flagged;
      }
    }
  }

  enum class cancel_claim {
    complete,           // nothing left to do
    running_elsewhere,  // polled on another thread: CANCELLED is set; wait until it is not RUNNING, then claim again
    claimed,            // RUNNING|CANCELLED now, with a running reference of the caller's
  };
  // Claims an idle or queued task as a worker would, to destroy its frame
  // on the calling thread. A queue entry that still points at it is
  // dropped when popped (start_poll: stale).
  [[nodiscard]] cancel_claim claim_for_cancel() noexcept {
    std::uint64_t s = word_.load(std::memory_order_acquire);
    for (;;) {
      if ((s & complete) != 0) return cancel_claim::complete;
      if ((s & running) != 0) {
        if ((s & cancelled) != 0) return cancel_claim::running_elsewhere;
        if (word_.compare_exchange_weak(s, s | cancelled, std::memory_order_acq_rel, std::memory_order_acquire)) {
          return cancel_claim::running_elsewhere;
        }
        continue;
      }
      if (word_.compare_exchange_weak(s, (s | running | cancelled) + ref_one, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
        return cancel_claim::claimed;
      }
    }
  }
  // Whether another thread still polls it (after running_elsewhere).
  bool polled_elsewhere() const noexcept { return (load() & (running | complete)) == running; }

  // --- the join_handle ---
  enum class joiner_slot {
    completed,  // the task is complete: take the result
    taken,      // another awaiter's waker is stored (one slot)
    free,       // store the waker, then publish_join_waker()
  };
  joiner_slot look_at_joiner_slot() const noexcept {
    const std::uint64_t s = load();
    if ((s & complete) != 0) return joiner_slot::completed;
    return (s & join_waker) != 0 ? joiner_slot::taken : joiner_slot::free;
  }
  // Publishes the joiner's waker (written before this): false when the task
  // completed first (completion never looked at the waker: take it back).
  [[nodiscard]] bool publish_join_waker() noexcept {
    std::uint64_t s = word_.load(std::memory_order_acquire);
    for (;;) {
      if ((s & complete) != 0) return false;
      if (word_.compare_exchange_weak(s, s | join_waker, std::memory_order_acq_rel, std::memory_order_acquire)) {
        return true;
      }
    }
  }
  // Takes the joiner's waker back: true when it is still the joiner's to
  // drop (completion had not claimed it).
  [[nodiscard]] bool withdraw_join_waker() noexcept {
    const auto before = word_.fetch_and(~join_waker, std::memory_order_acq_rel);
    return (before & join_waker) != 0 && (before & complete) == 0;
  }
  // The join_handle goes without the result; true when the task had
  // completed (then its failure, if any, is the handle's to report).
  [[nodiscard]] bool drop_join_interest() noexcept {
    return (word_.fetch_and(~join_interest, std::memory_order_acq_rel) & complete) != 0;
  }

  // --- block_on ---
  // Waits on the calling thread until COMPLETE (completion notifies the word).
  void wait_until_complete() noexcept {
    word_.fetch_or(blocking_joiner, std::memory_order_acq_rel);
    for (;;) {
      const std::uint64_t s = word_.load(std::memory_order_acquire);
      if ((s & complete) != 0) return;
      word_.wait(s, std::memory_order_acquire);
    }
  }

 private:
  // A wake of `generation` does nothing to the word `s`: complete, queued
  // already, or made for an older suspension.
  static bool ignores_wake(std::uint64_t s, std::uint64_t generation) noexcept {
    return (s & (complete | scheduled)) != 0 || (s & generation_mask) != (generation & generation_mask);
  }

  std::atomic<std::uint64_t> word_{scheduled | join_interest | 3 * ref_one};
};

}  // namespace lanes::detail
