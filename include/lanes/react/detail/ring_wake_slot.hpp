// ring_wake_slot: where one side of a ring says "I am asleep, wake me", and how
// the other side does it exactly once.
//
// A side that has nothing to do (the consumer of an empty ring, the
// producer of a full one) and wants to sleep instead of spinning arms the
// slot with a wake_target (a function and its argument: a parked thread's
// futex word, an io task's waker), re-checks the ring, and sleeps only if
// the re-check still finds nothing. The other side, after it changed the
// ring, calls notify_if(): if the slot is armed it takes it, checks that
// the change is still there for the waiter, calls the target and releases
// it.
//
// No lost wake-up (Dekker; detail/ordering.hpp gives both forms):
//   waiter:   state_ = armed (dekker_store); dekker_fence(); re-check index (dekker_load)
//   notifier: index = new    (dekker_store); dekker_fence(); load state_   (dekker_load)
// Of the two loads at least one sees the other side's store: either the
// waiter's re-check sees the new index (it disarms and does not sleep), or
// the notifier sees the slot armed and wakes it.
//
// States: idle -> armed (the waiter) -> taken (one notifier, exclusively)
// -> idle. While taken, the notifier calls the target, whose argument may
// point into the waiter (an awaiter on a coroutine frame), so a waiter that
// finds the slot taken when it disarms (its re-check succeeded, it was
// woken, or it is being cancelled) waits until the notifier is done, a few
// instructions, before it reuses or frees that memory. One waiter and one
// notifier per slot: the ring has one producer and one consumer.
#pragma once

#include <atomic>
#include <cstdint>

#include <lanes/detail/cpu_relax.hpp>
#include <lanes/detail/event_count.hpp>
#include <lanes/detail/ordering.hpp>

namespace lanes::react::detail {

struct wake_target {
  void (*wake)(void* argument) noexcept = nullptr;
  void* argument = nullptr;
};

// The target that wakes a thread sleeping on `wakeups` (a react thread, or
// a plain thread in wait_for_items). The waiter prepares its wait before it
// arms the slot: a notifier that takes the armed slot (its acquire reads
// the arm's release) then sees the waiter counted (event_count.hpp).
inline wake_target wake_target_of(lanes::detail::event_count& wakeups) noexcept {
  return {[](void* ec) noexcept { static_cast<lanes::detail::event_count*>(ec)->notify_one(); }, &wakeups};
}

class ring_wake_slot {
 public:
  // Waiter: arms the slot. The caller then runs dekker_fence() and
  // re-checks the ring with dekker_load, and disarms if it found work.
  void arm(wake_target target) noexcept {
    wait_while_taken();
    target_ = target;  // published by the store below, read after the notifier's acquiring CAS
    state_.store(armed, lanes::detail::dekker_store);
  }

  // Waiter: takes the slot back. True when it was still armed (no wake-up
  // will come); false when a notifier took it (its wake-up has been
  // delivered by the time this returns).
  bool disarm() noexcept {
    std::uint32_t expected = armed;
    if (state_.compare_exchange_strong(expected, idle, std::memory_order_acq_rel)) return true;
    wait_while_taken();
    return false;
  }

  // Notifier: after storing its index (dekker_store) and dekker_fence().
  // `still_waiting()` says, with the slot taken, whether the waiter's
  // condition holds now; if it does not, the slot goes back to armed and
  // no wake-up is sent. Why: a notification can be late - the notifier
  // published, the waiter (not yet asleep) used what it published, filled
  // or drained the ring again and re-armed, and only then did the notifier
  // reach notify(). Waking it then would be a spurious wake-up, which a
  // thread survives but an io task does not (it would resume with nothing
  // to take). No wake-up is lost by putting it back: only the notifier's
  // side can make the condition true, and it calls notify() again after
  // each change it makes.
  template <class StillWaiting>
  void notify_if(StillWaiting still_waiting) noexcept {
    if (state_.load(lanes::detail::dekker_load) != armed) return;
    std::uint32_t expected = armed;
    if (!state_.compare_exchange_strong(expected, taken, std::memory_order_acquire)) return;
    if (!still_waiting()) {
      state_.store(armed, std::memory_order_release);
      return;
    }
    target_.wake(target_.argument);
    state_.store(idle, std::memory_order_release);
  }
  // The same for a change that always satisfies the waiter (the other
  // side's handle is gone).
  void notify() noexcept {
    notify_if([] { return true; });
  }

  bool armed_now() const noexcept { return state_.load(std::memory_order_acquire) == armed; }

 private:
  static constexpr std::uint32_t idle = 0;
  static constexpr std::uint32_t armed = 1;
  static constexpr std::uint32_t taken = 2;

  void wait_while_taken() const noexcept {
    while (state_.load(std::memory_order_acquire) == taken) lanes::detail::cpu_relax();
  }

  std::atomic<std::uint32_t> state_{idle};
  wake_target target_;
};

}  // namespace lanes::react::detail
