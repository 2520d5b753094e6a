// The task state machine's transitions that are not the worker's own
// (see the protocol in include/lanes/io/detail/task_header.hpp).
#include <lanes/io/detail/task_header.hpp>

#include "io/scheduler.hpp"

namespace lanes::detail {

void task_header::unref(std::uint64_t count) noexcept {
  const auto before = state_.fetch_sub(count * task_state::ref_one, std::memory_order_acq_rel);
  if ((before & ~task_state::flag_mask) == count * task_state::ref_one) delete this;
}

waker& waker::operator=(waker&& other) noexcept {
  if (this != &other) {
    if (task_ != nullptr) task_->unref();
    task_ = other.task_;
    generation_ = other.generation_;
    other.task_ = nullptr;
  }
  return *this;
}

waker::~waker() {
  if (task_ != nullptr) task_->unref();
}

unsigned task_header::race_bits_begin() noexcept {
  const auto generation = state_.load(std::memory_order_relaxed) & task_state::generation_mask;
  if (race_generation_ != static_cast<std::uint32_t>(generation)) {
    // The first race of this suspension: older bits are stale. A stale
    // waker may still set a bit of an older generation; note_race_wake
    // checks the generation, so it cannot land in this word.
    race_generation_ = static_cast<std::uint32_t>(generation);
    race_bits_used_ = 0;
    race_woken_.store((generation >> 8) << 32, std::memory_order_relaxed);
  }
  return race_bits_used_;
}

void task_header::note_race_wake(std::uint64_t tagged_generation) noexcept {
  const std::uint64_t owner = ((tagged_generation & task_state::generation_mask) >> 8) << 32;
  const std::uint64_t bit = std::uint64_t{1} << ((tagged_generation & task_state::race_tag_mask) - 1);
  std::uint64_t w = race_woken_.load(std::memory_order_relaxed);
  while ((w & ~std::uint64_t{0xFFFF'FFFF}) == owner &&
         !race_woken_.compare_exchange_weak(w, w | bit, std::memory_order_release, std::memory_order_relaxed)) {
  }
}

void waker::wake() && noexcept {
  task_header* task = task_;
  if (task == nullptr) return;
  task_ = nullptr;
  if ((generation_ & task_state::race_tag_mask) != 0) task->note_race_wake(generation_);
  auto& state = task->state();
  std::uint64_t s = state.load(std::memory_order_acquire);
  for (;;) {
    if ((s & (task_state::complete | task_state::scheduled)) != 0) break;                         // nothing to do
    if ((s & task_state::generation_mask) != (generation_ & task_state::generation_mask)) break;  // stale: ignore
    if ((s & task_state::running) != 0) {
      // Running: the worker reschedules it when this poll ends.
      if (state.compare_exchange_weak(s, s | task_state::notified, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
        break;
      }
      continue;
    }
    // From a thread that is not one of the owner's workers the wake is
    // counted on the task, before the CAS that may schedule it, until it no
    // longer touches the scheduler (task_header::foreign_wake_begin). Our
    // reference keeps the task alive meanwhile.
    scheduler& owner = *task->owner();
    worker* const caller = owner.own_worker();
    if (caller == nullptr) task->foreign_wake_begin();
    if (state.compare_exchange_weak(s, s | task_state::scheduled, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
      if (caller != nullptr) {
        owner.schedule(*task, false, caller);  // our reference becomes the queue's
        return;
      }
      task->ref();                            // the count is on the task: keep it past the queue's reference
      owner.schedule(*task, false, nullptr);  // our reference becomes the queue's
      task->foreign_wake_end();
      task->unref();
      return;
    }
    if (caller == nullptr) task->foreign_wake_end();
  }
  task->unref();
}

void task_header::abort() noexcept {
  std::uint64_t s = state_.load(std::memory_order_acquire);
  for (;;) {
    if ((s & (task_state::complete | task_state::cancelled)) != 0) return;
    if ((s & (task_state::running | task_state::scheduled)) != 0) {
      // Whoever runs or pops it next sees CANCELLED and destroys the frame.
      if (state_.compare_exchange_weak(s, s | task_state::cancelled, std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
        return;
      }
      continue;
    }
    // Waiting on something: schedule it so that a worker destroys the frame.
    if (state_.compare_exchange_weak(s, s | task_state::cancelled | task_state::scheduled, std::memory_order_acq_rel,
                                     std::memory_order_acquire)) {
      ref();  // the queue's reference
      owner_->schedule(*this, true);
      return;
    }
  }
}

task_header::join_registration task_header::register_joiner(waker& w) noexcept {
  std::uint64_t s = state_.load(std::memory_order_acquire);
  if ((s & task_state::complete) != 0) return join_registration::completed;
  // The slot holds a waiter's waker: checked before joiner_ is written.
  // Without JOIN_WAKER the slot is empty (unregister_joiner and completion
  // empty it as they clear or see the flag): filled, not assigned.
  if ((s & task_state::join_waker) != 0) return join_registration::taken;
  joiner_.fill(static_cast<waker&&>(w));  // published by the CAS below
  for (;;) {
    if ((s & task_state::complete) != 0) {
      w.fill(static_cast<waker&&>(joiner_));  // completion never looked at it: take it back (w was emptied above)
      return join_registration::completed;
    }
    if (state_.compare_exchange_weak(s, s | task_state::join_waker, std::memory_order_acq_rel,
                                     std::memory_order_acquire)) {
      return join_registration::registered;
    }
  }
}

void task_header::unregister_joiner() noexcept {
  const auto before = state_.fetch_and(~task_state::join_waker, std::memory_order_acq_rel);
  // If COMPLETE came first, completion owns the waker (and has woken it).
  if ((before & task_state::join_waker) != 0 && (before & task_state::complete) == 0) {
    waker dropped = static_cast<waker&&>(joiner_);
  }
}

}  // namespace lanes::detail
