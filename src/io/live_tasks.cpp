// live_tasks: the per-worker lists, the shared shards and the hand-over of
// remote unlinks (see live_tasks.hpp).
#include "io/live_tasks.hpp"

#include <cstdint>
#include <limits>
#include <mutex>

#include <lanes/budget.hpp>

namespace lanes::detail {

static_assert(max_lane_threads <= std::numeric_limits<std::int16_t>::max(),
              "task_header::live_owner_ holds a worker index in 16 bits");

live_tasks::live_tasks(unsigned workers)
    : owned_(std::make_unique<std::unique_ptr<owned_list>[]>(workers)), workers_(workers) {
  for (unsigned i = 0; i < workers; ++i) owned_[i] = std::make_unique<owned_list>();
}

void live_tasks::push_front(task_header*& head, task_header& task) noexcept {
  task.live_prev_ = nullptr;
  task.live_next_ = head;
  if (head != nullptr) head->live_prev_ = &task;
  head = &task;
}

void live_tasks::remove(task_header*& head, task_header& task) noexcept {
  if (task.live_prev_ != nullptr) {
    task.live_prev_->live_next_ = task.live_next_;
  } else if (head == &task) {
    head = task.live_next_;
  }
  if (task.live_next_ != nullptr) task.live_next_->live_prev_ = task.live_prev_;
  task.live_prev_ = task.live_next_ = nullptr;
}

live_tasks::shard& live_tasks::shard_of(const task_header& task) noexcept {
  // Headers are at least 16-byte aligned: hash the bits above.
  const auto bits = reinterpret_cast<std::uintptr_t>(&task) >> 4;
  return shared_[(bits ^ (bits >> 7)) % shards];
}

void live_tasks::link(task_header& task, int caller) noexcept {
  task.live_owner_ = static_cast<std::int16_t>(caller);
  if (caller != shared) {
    auto& list = *owned_[static_cast<std::size_t>(caller)];
    collect(caller);
    push_front(list.head, task);
    return;
  }
  shard& s = shard_of(task);
  std::lock_guard lock(s.lock);
  push_front(s.head, task);
}

bool live_tasks::unlink(task_header& task, int caller) noexcept {
  const int owner = task.live_owner_;
  if (owner == shared) {
    shard& s = shard_of(task);
    std::lock_guard lock(s.lock);
    remove(s.head, task);
    return true;
  }
  auto& list = *owned_[static_cast<std::size_t>(owner)];
  if (owner == caller) {
    remove(list.head, task);
    return true;
  }
  // Another thread's list: hand the task over (Treiber push; the owner
  // takes the whole stack at once, so there is no ABA).
  task_header* top = list.remote.load(std::memory_order_relaxed);
  do {
    task.live_remote_next_ = top;
  } while (!list.remote.compare_exchange_weak(top, &task, std::memory_order_release, std::memory_order_relaxed));
  return false;
}

void live_tasks::collect_remote(owned_list& list) noexcept {
  task_header* task = list.remote.exchange(nullptr, std::memory_order_acquire);
  while (task != nullptr) {
    task_header* next = task->live_remote_next_;
    remove(list.head, *task);
    task->unref();  // the list's reference, left to us by unlink()
    task = next;
  }
}

task_header* live_tasks::any_when_stopped() noexcept {
  for (unsigned i = 0; i < workers_; ++i) {
    auto& list = *owned_[i];
    collect_remote(list);
    if (list.head != nullptr) return list.head;
  }
  for (auto& s : shared_) {
    std::lock_guard lock(s.lock);
    if (s.head != nullptr) return s.head;
  }
  return nullptr;
}

void live_tasks::unlink_when_stopped(task_header& task) noexcept {
  const int owner = task.live_owner_;
  if (owner == shared) {
    (void)unlink(task, shared);
    return;
  }
  remove(owned_[static_cast<std::size_t>(owner)]->head, task);
}

}  // namespace lanes::detail
