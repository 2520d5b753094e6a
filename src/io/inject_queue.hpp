// inject_queue: the runtime's global run queue, for tasks scheduled from
// outside a worker and for local-queue overflow. A mutex guards an
// intrusive list through task_header::queue_next_; `length_` is read without
// the lock as a hint (is there anything to take?), written under it.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>

#include <lanes/io/detail/task_header.hpp>

namespace lanes::detail {

class inject_queue {
 public:
  // False (nothing queued) once closed: the runtime is shutting down.
  bool push(task_header* task) noexcept { return push_batch(task, task, 1); }
  // Pushes the list first..last (linked through queue_next_) of `count` tasks.
  bool push_batch(task_header* first, task_header* last, std::size_t count) noexcept {
    last->queue_next_ = nullptr;
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    if (tail_ != nullptr) {
      tail_->queue_next_ = first;
    } else {
      head_ = first;
    }
    tail_ = last;
    length_.store(length_.load(std::memory_order_relaxed) + count, std::memory_order_release);
    return true;
  }
  // Refuses pushes from now on; what is queued can still be popped.
  void close() noexcept {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  task_header* pop() noexcept {
    std::size_t count = 0;
    return pop_chain(1, count);
  }
  // Takes up to `max` (at least one) tasks from the front under one lock:
  // returns the first, the others follow it through queue_next_ (the last
  // one's is null), and `count` says how many there are.
  task_header* pop_chain(std::size_t max, std::size_t& count) noexcept {
    count = 0;
    if (empty()) return nullptr;
    std::lock_guard lock(mutex_);
    task_header* first = head_;
    if (first == nullptr) return nullptr;
    task_header* last = first;
    count = 1;
    while (count < max && last->queue_next_ != nullptr) {
      last = last->queue_next_;
      ++count;
    }
    head_ = last->queue_next_;
    if (head_ == nullptr) tail_ = nullptr;
    last->queue_next_ = nullptr;
    length_.store(length_.load(std::memory_order_relaxed) - count, std::memory_order_release);
    return first;
  }
  bool empty() const noexcept { return length_.load(std::memory_order_acquire) == 0; }
  std::size_t size() const noexcept { return length_.load(std::memory_order_acquire); }

 private:
  std::mutex mutex_;
  task_header* head_ = nullptr;
  task_header* tail_ = nullptr;
  bool closed_ = false;
  std::atomic<std::size_t> length_{0};
};

}  // namespace lanes::detail
