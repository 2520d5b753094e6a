// fd_registry: the file descriptors registered with a runtime's epoll
// driver (async_fd), each a slot with the wakers of the tasks waiting for
// it to be readable or writable.
//
// The table is shared (std::shared_ptr) by the driver and every async_fd
// registered in it: an async_fd may outlive its runtime (kept in an object
// that lives longer), and its destructor must then find a closed table,
// not freed memory. The driver closes the table before it closes its epoll
// instance; from then on every call finds no slot, and touches no epoll
// descriptor (whose number the process may have reused).
//
// A registration's key (what epoll hands back) is (index + 1) << 32 |
// generation, so an event for a slot that has been deregistered (and maybe
// reused) since is recognised and dropped. Slots and their wakers are
// guarded by the table's mutex; wakers are woken after it is released.
//
// A registration removed while a task waits on it (the descriptor closed
// under it) wakes that task, after setting the flag the wait gave to arm()
// (under the mutex, so never after the waiter has left: disarm takes the
// same mutex). The woken wait sees the flag and fails instead of touching
// a descriptor whose number the process may have reused.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include <lanes/io/detail/task_header.hpp>
#include <lanes/io/detail/waiter_slot.hpp>

namespace lanes::detail {

class fd_registry {
 public:
  explicit fd_registry(int epoll_fd) noexcept : epoll_fd_(epoll_fd) {}

  static constexpr std::uint64_t key_base = std::uint64_t{1} << 32;  // keys are at least this
  static constexpr unsigned read = 0;
  static constexpr unsigned write = 1;

  // Watches `fd` (one-shot, armed per wait); std::system_error if epoll
  // cannot (a regular file), runtime_misuse once the runtime is gone.
  std::uint64_t add(int fd);
  void remove(std::uint64_t key) noexcept;
  // Arms a one-shot wait for `direction`: `w` is woken when the fd is ready
  // for it, has hung up or failed, or is deregistered (then `*removed` is
  // set true first). false: the key is stale, or the table closed. One
  // waiter per direction: a second is a runtime_misuse (it would replace
  // the first, which would then wait for good).
  bool arm(std::uint64_t key, unsigned direction, waker& w, bool* removed);
  // Takes back the waker of `direction` if it still wakes `task`: the
  // task's wait ends (cancelled, a race lost). A wake may have taken it
  // already, and another task be waiting there now.
  void disarm(std::uint64_t key, unsigned direction, const task_header* task) noexcept;
  // The driver saw `events` for `key`: wakes the waiters they satisfy.
  void dispatch(std::uint64_t key, std::uint32_t events) noexcept;
  // The driver is going: drops the slots; later calls find none.
  void close() noexcept;
  std::size_t count() const noexcept { return count_.load(std::memory_order_relaxed); }

 private:
  struct slot {
    int fd = -1;
    std::uint32_t generation = 0;
    waiter_slot waiting[2];                 // reader, writer
    bool* removed[2] = {nullptr, nullptr};  // their flags (arm)
  };
  // Takes the waiter of `direction` to wake (and forgets its flag).
  static waker take_waiter(slot& s, unsigned direction) noexcept {
    s.removed[direction] = nullptr;
    return s.waiting[direction].take();
  }
  slot* slot_of(std::uint64_t key) noexcept;
  // Re-arms the slot's one-shot registration for the directions still waited on.
  void rearm_locked(std::uint64_t key, slot& s) noexcept;

  std::mutex mutex_;
  int epoll_fd_;  // -1 once closed
  std::vector<slot> slots_;
  std::vector<std::uint32_t> free_;
  std::atomic<std::size_t> count_{0};
};

}  // namespace lanes::detail
