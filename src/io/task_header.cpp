// What wakers, abort and the join_handle do with the task state machine's
// transitions (include/lanes/io/detail/task_state.hpp): the outcome each
// returns, acted on.
#include <lanes/io/detail/task_header.hpp>

#include "io/scheduler.hpp"

namespace lanes::detail {

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
  const auto generation = state_.generation();
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

void waker::wake() && noexcept { std::move(*this).wake(tls_task != nullptr ? placement::next : placement::back); }

void waker::wake(placement where) && noexcept {
  task_header* task = task_;
  if (task == nullptr) return;
  task_ = nullptr;
  if ((generation_ & task_state::race_tag_mask) != 0) task->note_race_wake(generation_);
  task_state& state = task->state();
  if (!state.may_wake(generation_)) {  // complete (its owner may be gone), queued, or stale
    task->unref();
    return;
  }
  // From a thread that is not one of the owner's workers the wake is
  // counted on the task, before the transition that may schedule it, until
  // it no longer touches the scheduler (task_header::foreign_wake_begin).
  // Our reference keeps the task alive meanwhile.
  scheduler& owner = *task->owner();
  io_worker* const caller = owner.own_worker();
  if (caller == nullptr) task->foreign_wake_begin();
  if (state.wake(generation_) != task_state::wake_outcome::scheduled) {
    if (caller == nullptr) task->foreign_wake_end();
    task->unref();  // ignored, or notified: the running worker reschedules it
    return;
  }
  if (caller != nullptr) {
    owner.schedule(*task, where, caller);  // our reference becomes the queue's
    return;
  }
  task->ref();                                      // the count is on the task: keep it past the queue's reference
  owner.schedule(*task, placement::back, nullptr);  // our reference becomes the queue's
  task->foreign_wake_end();
  task->unref();
}

void task_header::abort() noexcept {
  // A task that waited is queued, so that a worker destroys the frame; one
  // running or queued is destroyed by whoever runs or pops it next.
  if (state_.abort() == task_state::abort_outcome::scheduled) {
    ref();  // the queue's reference
    owner_->schedule(*this, placement::back);
  }
}

task_header::join_registration task_header::register_joiner(waker& w) noexcept {
  // The slot holds a waiter's waker: checked before joiner_ is written.
  // Without JOIN_WAKER the slot is empty (unregister_joiner and completion
  // empty it as they clear or see the flag): filled, not assigned.
  switch (state_.look_at_joiner_slot()) {
    case task_state::joiner_slot::completed:
      return join_registration::completed;
    case task_state::joiner_slot::taken:
      return join_registration::taken;
    case task_state::joiner_slot::free:
      break;
  }
  joiner_.fill(static_cast<waker&&>(w));  // published by the transition below
  if (!state_.publish_join_waker()) {
    w.fill(static_cast<waker&&>(joiner_));  // completion never looked at it: take it back (w was emptied above)
    return join_registration::completed;
  }
  return join_registration::registered;
}

void task_header::unregister_joiner() noexcept {
  // If COMPLETE came first, completion owns the waker (and has woken it).
  if (state_.withdraw_join_waker()) {
    waker dropped = static_cast<waker&&>(joiner_);
  }
}

}  // namespace lanes::detail
