// local_queue: a worker's bounded run queue. The owner pushes and pops at
// the two ends; other workers steal half of it in one go. Tokio's design
// (its queue.rs), rebuilt from the idea.
//
// Fields and who writes them:
//   tail  - only the owner (push). Stealers read it with acquire, pairing
//           with the owner's release store: a slot is written before tail
//           moves past it.
//   head  - two 32-bit indices packed in one word: `real`, where the next
//           pop or steal starts, and `steal`, where an in-progress steal
//           started. steal == real when nobody is stealing. The owner pops
//           by CAS on `real`; one stealer at a time claims [real, real+n) by
//           moving `real` alone, copies the slots, then moves `steal` up to
//           `real`. The owner never overwrites slots in [steal, tail): it
//           checks tail - steal < capacity (acquire on head, pairing with the
//           stealer's acq_rel CAS that finishes the steal).
// Slots are relaxed atomics: the index protocol orders them.
// Capacity 256 is Tokio's: enough to absorb bursts without the overflow
// path, small enough to steal from cheaply.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <lanes/io/detail/task_header.hpp>

namespace lanes::detail {

class inject_queue;

class local_queue {
 public:
  static constexpr std::uint32_t capacity = 256;

  // Owner only. When full, moves half the queue plus `task` to `overflow`.
  void push_back(task_header* task, inject_queue& overflow) noexcept;
  // Owner only: how many tasks push_back could take now without overflowing.
  std::uint32_t room() const noexcept;
  // Owner only, with at most room() tasks: appends the chain starting at
  // `first` (linked through queue_next_), published with one tail store.
  void push_chain(task_header* first, std::uint32_t count) noexcept;
  // Owner only.
  task_header* pop() noexcept;
  // Owner only: starts loading the header of the task pop() would return
  // next, so that it arrives while the current task runs (a queue of cold
  // tasks, as S3's first polls, where each header is a cache miss).
  // A thief may take that task meanwhile; a prefetch never faults.
  void prefetch_front() const noexcept;
  // Owner only, and only where no other worker exists to steal (a runtime
  // of one worker): no steal can be in progress, so head moves by a store.
  task_header* pop_unshared() noexcept;
  // Any other worker: moves about half of this queue into `dst` (which must
  // be the caller's own, empty-enough queue) and returns one task to run.
  task_header* steal_into(local_queue& dst) noexcept;

  bool empty() const noexcept { return size() == 0; }
  std::uint32_t size() const noexcept {
    const auto head = head_.load(std::memory_order_acquire);
    const auto tail = tail_.load(std::memory_order_acquire);
    return tail - real_of(head);
  }

 private:
  static constexpr std::uint32_t mask = capacity - 1;
  static std::uint64_t pack(std::uint32_t steal, std::uint32_t real) noexcept {
    return (std::uint64_t{steal} << 32) | real;
  }
  static std::uint32_t steal_of(std::uint64_t head) noexcept { return static_cast<std::uint32_t>(head >> 32); }
  static std::uint32_t real_of(std::uint64_t head) noexcept { return static_cast<std::uint32_t>(head); }
  bool push_overflow(task_header* task, std::uint32_t head, inject_queue& overflow) noexcept;

  alignas(64) std::atomic<std::uint64_t> head_{0};
  alignas(64) std::atomic<std::uint32_t> tail_{0};
  alignas(64) std::array<std::atomic<task_header*>, capacity> slots_{};
};

}  // namespace lanes::detail
