#include "io/local_queue.hpp"

#include "io/inject_queue.hpp"

namespace lanes::detail {

void local_queue::push_back(task_header* task, inject_queue& overflow) noexcept {
  for (;;) {
    const auto head = head_.load(std::memory_order_acquire);
    const auto steal = steal_of(head);
    const auto real = real_of(head);
    const auto tail = tail_.load(std::memory_order_relaxed);  // only we write it
    if (tail - steal < capacity) {
      slots_[tail & mask].store(task, std::memory_order_relaxed);
      tail_.store(tail + 1, std::memory_order_release);  // publishes the slot to stealers
      return;
    }
    if (steal != real) {
      // A stealer is emptying the queue right now; it will make room, but
      // not before we return, so this one task goes to the global queue.
      overflow.push(task);
      return;
    }
    if (push_overflow(task, real, overflow)) return;
    // A stealer moved head between our load and the CAS: retry.
  }
}

std::uint32_t local_queue::room() const noexcept {
  const auto steal = steal_of(head_.load(std::memory_order_acquire));
  return capacity - (tail_.load(std::memory_order_relaxed) - steal);
}

void local_queue::push_chain(task_header* first, std::uint32_t count) noexcept {
  // The chain is ours alone until the tail store publishes it: a task that
  // a stealer could take may be pushed on the global queue again, which
  // rewrites its queue_next_, so every link is read before that store.
  const auto tail = tail_.load(std::memory_order_relaxed);  // only we write it
  task_header* task = first;
  for (std::uint32_t i = 0; i < count; ++i) {
    slots_[(tail + i) & mask].store(task, std::memory_order_relaxed);
    task = task->queue_next_;
  }
  tail_.store(tail + count, std::memory_order_release);  // publishes the slots to stealers
}

bool local_queue::push_overflow(task_header* task, std::uint32_t head, inject_queue& overflow) noexcept {
  constexpr std::uint32_t half = capacity / 2;
  // Claim the oldest half, as a stealer would, by moving both indices.
  auto expected = pack(head, head);
  if (!head_.compare_exchange_strong(expected, pack(head + half, head + half), std::memory_order_release,
                                     std::memory_order_relaxed)) {
    return false;
  }
  // Link the claimed tasks and `task` into one batch for the global queue.
  task_header* first = slots_[head & mask].load(std::memory_order_relaxed);
  task_header* last = first;
  for (std::uint32_t i = 1; i < half; ++i) {
    task_header* next = slots_[(head + i) & mask].load(std::memory_order_relaxed);
    last->queue_next_ = next;
    last = next;
  }
  last->queue_next_ = task;
  overflow.push_batch(first, task, half + 1);
  return true;
}

task_header* local_queue::pop() noexcept {
  auto head = head_.load(std::memory_order_acquire);
  for (;;) {
    const auto steal = steal_of(head);
    const auto real = real_of(head);
    const auto tail = tail_.load(std::memory_order_relaxed);
    if (real == tail) return nullptr;
    const auto next_real = real + 1;
    // While a steal is in progress only `real` moves; the stealer moves `steal`.
    const auto next = steal == real ? pack(next_real, next_real) : pack(steal, next_real);
    if (head_.compare_exchange_weak(head, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
      return slots_[real & mask].load(std::memory_order_relaxed);
    }
  }
}

void local_queue::prefetch_front() const noexcept {
  const auto real = real_of(head_.load(std::memory_order_relaxed));
  if (real == tail_.load(std::memory_order_relaxed)) return;
  task_header::prefetch(slots_[real & mask].load(std::memory_order_relaxed));
}

task_header* local_queue::pop_unshared() noexcept {
  const auto real = real_of(head_.load(std::memory_order_relaxed));
  if (real == tail_.load(std::memory_order_relaxed)) return nullptr;
  head_.store(pack(real + 1, real + 1), std::memory_order_relaxed);
  return slots_[real & mask].load(std::memory_order_relaxed);
}

task_header* local_queue::steal_into(local_queue& dst) noexcept {
  const auto dst_tail = dst.tail_.load(std::memory_order_relaxed);  // dst is the caller's own queue
  const auto dst_steal = steal_of(dst.head_.load(std::memory_order_acquire));
  if (dst_tail - dst_steal > capacity / 2) return nullptr;  // no room for half of a full queue

  // 1. Claim [real, real + n): move `real`, leave `steal` where it was.
  auto head = head_.load(std::memory_order_acquire);
  std::uint32_t first = 0;
  std::uint32_t n = 0;
  for (;;) {
    const auto steal = steal_of(head);
    const auto real = real_of(head);
    if (steal != real) return nullptr;  // another stealer is at work here
    const auto tail = tail_.load(std::memory_order_acquire);
    n = tail - real;
    n -= n / 2;
    if (n == 0) return nullptr;
    if (head_.compare_exchange_weak(head, pack(steal, real + n), std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
      first = real;
      break;
    }
  }
  // 2. Copy the claimed slots. The owner cannot reuse them: `steal` still
  //    marks their start.
  for (std::uint32_t i = 0; i < n; ++i) {
    task_header* task = slots_[(first + i) & mask].load(std::memory_order_relaxed);
    dst.slots_[(dst_tail + i) & mask].store(task, std::memory_order_relaxed);
  }
  // 3. Release the slots: steal = real.
  head = head_.load(std::memory_order_acquire);
  for (;;) {
    const auto real = real_of(head);
    if (head_.compare_exchange_weak(head, pack(real, real), std::memory_order_acq_rel, std::memory_order_acquire)) {
      break;
    }
  }
  // Run the last one ourselves; publish the rest in our queue.
  --n;
  task_header* ret = dst.slots_[(dst_tail + n) & mask].load(std::memory_order_relaxed);
  if (n > 0) dst.tail_.store(dst_tail + n, std::memory_order_release);
  return ret;
}

}  // namespace lanes::detail
