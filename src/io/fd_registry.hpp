// fd_registry: the file descriptors registered with a runtime's epoll
// driver (async_fd, the lanes::net sockets), each a slot with its
// readiness (include/lanes/io/detail/fd_readiness.hpp) and the wakers of
// the tasks waiting for it to be readable or writable.
//
// The table is shared (std::shared_ptr) by the driver and every async_fd
// registered in it: an async_fd may outlive its runtime (kept in an object
// that lives longer), and its destructor must then find a closed table,
// not freed memory. The driver closes the table before it closes its epoll
// instance; from then on every call finds no slot, and touches no epoll
// descriptor (whose number the process may have reused).
//
// Slots live in chunks that are never moved or freed before the table,
// so a registration may point at its slot's readiness, and the driver
// finds a slot from the key epoll hands back without the table's mutex:
// the key is (index + 1) << 32 | generation, and an event for a slot that
// has been deregistered (and maybe reused) since has an old generation and
// is dropped. The table's mutex guards allocation (chunks, the free list);
// each slot's own mutex guards its descriptor, generation, wakers and the
// setting of its readiness. Wakers are woken after the lock is released.
//
// A wake is never stale. With more than one worker, the driver's
// epoll_wait (on one worker) can report an event whose bytes a task on
// another worker reads before the driver dispatches it; that task's next
// wait would then be woken for nothing, and an operation cannot wait
// again inside await_resume. So on such a runtime dispatch asks the
// kernel (poll(2), no wait) before it wakes a waiter, and leaves the
// waiter in place when the event is stale. With one worker the event is
// dispatched by the thread that runs the tasks, before any task runs: it
// cannot be stale, and no call is made.
//
// A registration removed while a task waits on it (the descriptor closed
// under it) wakes that task, after setting the flag the wait gave to arm()
// (under the slot's mutex, so never after the waiter has left: disarm takes
// the same mutex). The woken wait sees the flag and fails instead of
// touching a descriptor whose number the process may have reused.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <lanes/io/detail/fd_readiness.hpp>
#include <lanes/io/detail/task_header.hpp>
#include <lanes/io/detail/waiter_slot.hpp>

namespace lanes::detail {

class fd_registry {
 public:
  // `verify_wakes`: more than one thread runs the tasks (see above).
  fd_registry(int epoll_fd, bool verify_wakes) noexcept : epoll_fd_(epoll_fd), verify_wakes_(verify_wakes) {}

  static constexpr std::uint64_t key_base = std::uint64_t{1} << 32;  // keys are at least this
  static constexpr unsigned read = 0;
  static constexpr unsigned write = 1;

  // Watches `fd` (edge-triggered, both directions, for as long as it is
  // registered); std::system_error if epoll cannot (a regular file),
  // runtime_misuse once the runtime is gone.
  fd_registration add(int fd);
  void remove(std::uint64_t key) noexcept;
  // Leaves `w` to be woken when the fd is ready for `direction`, has hung
  // up or failed, or is deregistered (then `*removed` is set true first) -
  // unless the direction is ready already (ready) or the key is stale or
  // the table closed (gone). One waiter per direction: a second is a
  // runtime_misuse (it would replace the first, which would then wait for good).
  fd_arm_result arm(std::uint64_t key, unsigned direction, waker& w, bool* removed);
  // Takes back the waker of `direction` if it still wakes `task`: the
  // task's wait ends (cancelled, a race lost). A wake may have taken it
  // already, and another task be waiting there now.
  void disarm(std::uint64_t key, unsigned direction, const task_header* task) noexcept;
  // The driver saw `events` for `key`: sets the readiness, wakes the waiters.
  void dispatch(std::uint64_t key, std::uint32_t events) noexcept;
  // The driver is going: drops the slots' waiters; later calls find none.
  void close() noexcept;
  std::size_t count() const noexcept { return count_.load(std::memory_order_relaxed); }

 private:
  struct slot {
    std::mutex mutex;
    int fd = -1;
    std::uint32_t generation = 0;
    fd_readiness readiness;
    waiter_slot waiting[2];                 // reader, writer
    bool* removed[2] = {nullptr, nullptr};  // their flags (arm)
  };
  static constexpr std::size_t chunk_slots = 1024;
  static constexpr std::size_t max_chunks = 4096;  // 4M registrations

  // The slot of `key` if the key is current, locked; else nullptr.
  slot* lock_current(std::uint64_t key, std::unique_lock<std::mutex>& lock) noexcept;
  slot* slot_at(std::size_t index) const noexcept;
  // Takes the waiter of `direction` to wake (and forgets its flag).
  static waker take_waiter(slot& s, unsigned direction) noexcept {
    s.removed[direction] = nullptr;
    return s.waiting[direction].take();
  }

  std::mutex mutex_;           // allocation: chunks_, slot_count_, free_
  std::atomic<int> epoll_fd_;  // -1 once closed
  const bool verify_wakes_;
  std::array<std::atomic<slot*>, max_chunks> chunks_{};
  std::vector<std::unique_ptr<slot[]>> owned_chunks_;
  std::size_t slot_count_ = 0;
  std::vector<std::uint32_t> free_;
  std::atomic<std::size_t> count_{0};
};

}  // namespace lanes::detail
