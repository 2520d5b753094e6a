// live_tasks: every task of a runtime that has not completed, so that
// shutdown can find and cancel the ones still suspended. Each entry holds a
// reference to its task (see task_header.hpp).
//
// A task spawned on a worker's thread goes on that worker's own list, which
// only that thread links and unlinks: no locked instruction on the common
// path, where a task completes on the worker that spawned it. A task
// spawned from any other thread goes on a shared list, sharded by address,
// each shard under a spin lock.
//
// A task on a worker's list that completes elsewhere (it was stolen, or
// cancelled from another thread) cannot be unlinked there: the completing
// thread pushes it on the owner's stack of remote unlinks (a lock-free
// push) and leaves the list's reference to the owner, which unlinks and
// releases such tasks when it next spawns, runs maintenance or parks. Their
// frames are already gone; only the headers wait.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>

#include <lanes/io/detail/task_header.hpp>

#include "io/spin_lock.hpp"

namespace lanes::detail {

class live_tasks {
 public:
  static constexpr int shared = -1;  // "the calling thread is not a worker"

  explicit live_tasks(unsigned workers);
  live_tasks(const live_tasks&) = delete;
  live_tasks& operator=(const live_tasks&) = delete;

  // `caller`: the index of the worker whose thread calls, or `shared`.
  void link(task_header& task, int caller) noexcept;
  // Unlinks `task`. true: done, and the list's reference is the caller's to
  // drop; false: handed to its owner, which drops it.
  [[nodiscard]] bool unlink(task_header& task, int caller) noexcept;
  // The owner's side: unlinks and releases what other threads handed over.
  void collect(int owner) noexcept {
    auto& list = *owned_[static_cast<std::size_t>(owner)];
    if (list.remote.load(std::memory_order_relaxed) != nullptr) collect_remote(list);
  }

  // Shutdown, once no worker runs (the caller acts as every owner): any
  // task still listed (nullptr when none), and its unlinking; the list's
  // reference becomes the caller's.
  task_header* any_when_stopped() noexcept;
  void unlink_when_stopped(task_header& task) noexcept;
  // Shutdown, once no worker runs: calls f(task) for each task listed.
  template <class F>
  void for_each_when_stopped(F f) {
    for (unsigned i = 0; i < workers_; ++i) {
      auto& list = *owned_[i];
      collect_remote(list);
      for (task_header* t = list.head; t != nullptr; t = t->live_next_) f(*t);
    }
    for (auto& s : shared_) {
      for (task_header* t = s.head; t != nullptr; t = t->live_next_) f(*t);
    }
  }

 private:
  struct alignas(64) owned_list {
    task_header* head = nullptr;  // the owner's thread only
    // Tasks other threads completed, linked through live_remote_next_.
    // Pushed with release, taken with acquire by the owner.
    alignas(64) std::atomic<task_header*> remote{nullptr};
  };
  struct alignas(64) shard {
    spin_lock lock;
    task_header* head = nullptr;
  };
  static constexpr std::size_t shards = 16;

  static void push_front(task_header*& head, task_header& task) noexcept;
  static void remove(task_header*& head, task_header& task) noexcept;
  shard& shard_of(const task_header& task) noexcept;
  void collect_remote(owned_list& list) noexcept;

  std::unique_ptr<std::unique_ptr<owned_list>[]> owned_;
  unsigned workers_;
  std::array<shard, shards> shared_;
};

}  // namespace lanes::detail
