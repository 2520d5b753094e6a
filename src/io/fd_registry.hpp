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
// Completions (the io_uring backend): a stream socket's reading side or a
// listener's accepting side may be driven by the driver's ring (uring.hpp)
// instead of epoll (use_ring). A multishot receive (accept) then runs in
// the kernel; each completion the driver reaps puts its bytes (its
// descriptor) in the slot's inbox and sets the read bit, and a read takes
// from the inbox (ring_receive, ring_accept) - so a read cancelled while
// it waits loses nothing: what the kernel received stays in the inbox for
// the next one. The multishot operation is armed lazily, by a read that
// finds the socket drained; until then, and whenever it has ended (the
// inbox reached `inbox_cap` and it was cancelled), reads call recv
// (accept4) directly, so the kernel's own buffer is what holds data
// nobody reads - bounded, as on epoll. A receive that finds the buffer
// ring dry ends at once, and would again if armed again: that socket
// reads through epoll from then on, once its inbox is read. A slot removed
// while its operation is armed retires: the operation is cancelled, and
// the slot (its generation, its inbox) is reused only after the
// operation's last completion, whose user_data names it.
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
#include <span>
#include <string>
#include <vector>

#include <lanes/io/detail/fd_readiness.hpp>
#include <lanes/io/detail/task_header.hpp>
#include <lanes/io/detail/waiter_slot.hpp>

namespace lanes::detail {

class uring;

class fd_registry {
 public:
  // `verify_wakes`: more than one thread runs the tasks (see above);
  // `completions`: the backend is io_uring (use_ring may say yes).
  fd_registry(int epoll_fd, bool verify_wakes, bool completions) noexcept;
  ~fd_registry();

  // Keys are at least key_base; their two low bits are clear (uring.hpp
  // puts the operation there). ring_key tags the ring's descriptor in epoll.
  static constexpr std::uint64_t key_base = std::uint64_t{1} << 32;
  static constexpr std::uint64_t ring_key = 3;
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
  // The driver is going: drops the slots' waiters, closes the ring;
  // later calls find none.
  void close() noexcept;

  // Completions (see above). use_ring: the ring drives the reading
  // (`accepting`: accepting) side of `key` from now on; false when the
  // backend is epoll or the ring cannot be opened (epoll goes on).
  bool use_ring(std::uint64_t key, bool accepting) noexcept;
  // As recv(2) and accept4(2) (non-blocking, CLOEXEC, no address) would:
  // the count (the descriptor), or -1 and errno. `drained`: the next
  // receive would find nothing until a completion comes.
  ssize_t ring_receive(std::uint64_t key, std::span<std::byte> into, bool& drained) noexcept;
  ssize_t ring_accept(std::uint64_t key) noexcept;
  // Whether a read would find something now; if not, makes sure a
  // completion will say when (arms the operation) and clears the read bit.
  bool ring_ready(std::uint64_t key) noexcept;
  // The driver's holder: hands the ring's completions to their slots.
  void reap() noexcept;
  // Any worker, now and then: uring::run_own_work.
  void run_ring_work() noexcept;
  std::size_t count() const noexcept { return count_.load(std::memory_order_relaxed); }

 private:
  // What a completion left for a read: a buffer of the ring (its id, how
  // much of it is read, how much it holds), or an accepted descriptor.
  struct inbox_entry {
    std::uint32_t value;
    std::uint32_t offset;
    std::uint32_t length;
  };
  // What waits for reads, oldest first; emptied, it gives its space back to the next.
  class inbox_queue {
   public:
    bool empty() const noexcept { return head_ == entries_.size(); }
    std::size_t size() const noexcept { return entries_.size() - head_; }
    inbox_entry& front() noexcept { return entries_[head_]; }
    void push(inbox_entry e) { entries_.push_back(e); }
    void pop() noexcept {
      if (++head_ == entries_.size()) clear();
    }
    void clear() noexcept {
      entries_.clear();
      head_ = 0;
    }

   private:
    std::vector<inbox_entry> entries_;
    std::size_t head_ = 0;
  };
  enum class ring_use : std::uint8_t { none, receive, accept };
  struct slot {
    std::mutex mutex;
    int fd = -1;
    std::uint32_t generation = 0;  // steps by 4: a key's low bits are clear
    fd_readiness readiness;
    waiter_slot waiting[2];                 // reader, writer
    bool* removed[2] = {nullptr, nullptr};  // their flags (arm)
    // Completions (all under `mutex`).
    ring_use ring = ring_use::none;
    bool ring_armed = false;       // a multishot operation runs (until its last completion)
    bool ring_cancelling = false;  // it was asked to end (the inbox reached its cap)
    bool ring_dry = false;         // the buffer ring ran dry on it: epoll reads once the inbox is empty
    bool ring_ended = false;       // the peer's end of stream, or `ring_error`, came: final
    int ring_error = 0;
    inbox_queue inbox;
  };
  static constexpr std::size_t chunk_slots = 1024;
  static constexpr std::size_t max_chunks = 4096;  // 4M registrations
  static constexpr std::size_t inbox_cap = 8;      // entries before the multishot operation is cancelled

  // The slot of `key` if the key is current, locked; else nullptr.
  slot* lock_current(std::uint64_t key, std::unique_lock<std::mutex>& lock) noexcept;
  slot* slot_at(std::size_t index) const noexcept;
  // Takes the waiter of `direction` to wake (and forgets its flag).
  static waker take_waiter(slot& s, unsigned direction) noexcept {
    s.removed[direction] = nullptr;
    return s.waiting[direction].take();
  }

  // Completions (fd_completions.cpp), under the slot's lock.
  uring* ring() noexcept;  // opened at the first use_ring; null if it cannot be
  bool arm_ring(slot& s, std::uint64_t key) noexcept;
  void complete(std::uint64_t user_data, int result, unsigned flags) noexcept;
  // A completion that ended the operation brought nothing to read: wake
  // the reader if the socket has something, else arm again.
  bool ended_empty(slot& s, std::uint64_t key) noexcept;
  void release_inbox(slot& s) noexcept;  // buffers back to the ring, descriptors closed
  // The socket's reading side goes back to epoll, for good.
  void read_through_epoll(slot& s, std::uint64_t key) noexcept;
  // The slot's index goes back to the free list.
  void free_index(std::size_t index);

  std::mutex mutex_;           // allocation: chunks_, slot_count_, free_; opening the ring
  std::atomic<int> epoll_fd_;  // -1 once closed
  const bool verify_wakes_;
  const bool completions_;
  std::atomic<uring*> ring_{nullptr};
  std::unique_ptr<uring> owned_ring_;
  bool ring_failed_ = false;  // under mutex_
  std::array<std::atomic<slot*>, max_chunks> chunks_{};
  std::vector<std::unique_ptr<slot[]>> owned_chunks_;
  std::size_t slot_count_ = 0;
  std::vector<std::uint32_t> free_;
  std::atomic<std::size_t> count_{0};
};

}  // namespace lanes::detail
