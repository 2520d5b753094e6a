// fd_readiness: what the driver last learned of a registered descriptor's
// readiness, per direction, kept so that an operation can skip a call that
// would only say EAGAIN (Tokio's ScheduledIo readiness, in miniature).
//
// Descriptors are registered edge-triggered (EPOLLET), once: the kernel
// reports each change, the driver sets the direction's bit, and nothing is
// re-armed per wait. A direction's state is (tick << 2) | closed << 1 | ready:
// - the driver sets `ready` and advances the tick for each event, under
//   the registration's lock (set()); a hang-up or an error (and, for
//   reading, the peer's end of stream) also sets `closed`, which is final:
//   a short read that stops at a pending end of stream must not clear the
//   readiness that the end of stream stands for (Tokio keeps its closed
//   states the same way);
// - an operation takes a snapshot, makes its call, and when the call says
//   the direction is used up (EAGAIN, or a short read or write on a
//   stream) clears `ready` with a compare-exchange against its snapshot,
//   which fails if an event came in between (clear()): an edge is never
//   lost to a clear that read the state before it;
// - a task about to wait checks `ready` again under the registration's
//   lock before it leaves its waker, the lock the driver holds while it
//   sets the bit and takes the wakers, so an event is either seen by that
//   check or finds the waker.
// A bit that is set may be stale (set at registration, or by an edge whose
// bytes were read since with a full-size read): it costs one call that
// says EAGAIN, and that call clears it.
//
// On the io_uring backend a socket's reading side may be driven by the
// ring instead (fd_registry.hpp, "Completions"): `from_ring()` is then
// true, and the read bit says what the registry's inbox holds, set by the
// completions the driver reaps rather than by epoll.
#pragma once

#include <atomic>
#include <cstdint>

namespace lanes::detail {

class fd_registry;

class fd_readiness {
 public:
  using snapshot = std::uint32_t;
  static bool ready(snapshot s) noexcept { return (s & 3U) != 0; }

  snapshot load(unsigned direction) const noexcept { return state_[direction].load(std::memory_order_acquire); }
  // The call made after `seen` found the direction used up: clears
  // `ready` unless an event came since (then false: try again). `closed` stays.
  bool clear(unsigned direction, snapshot seen) noexcept {
    return state_[direction].compare_exchange_strong(seen, seen & ~1U, std::memory_order_acq_rel,
                                                     std::memory_order_acquire);
  }
  // The driver, under the registration's lock: an event for `direction`
  // (`closed`: the end of it). A plain store after a load is enough: only
  // the lock holder sets, and a clear that raced it compared against the
  // old tick and failed.
  void set(unsigned direction, bool closed) noexcept {
    const snapshot s = state_[direction].load(std::memory_order_relaxed);
    state_[direction].store(((s >> 2) + 1) << 2 | (s & 2U) | (closed ? 2U : 0U) | 1U, std::memory_order_release);
  }
  // Under the registration's lock, for a new descriptor: ready (unknown
  // yet: the first call finds out), not closed.
  void reset() noexcept {
    for (auto& d : state_) d.store(((d.load(std::memory_order_relaxed) >> 2) + 1) << 2 | 1U, std::memory_order_release);
    from_ring_.store(false, std::memory_order_release);
  }
  // Whether the ring drives the reading side (set under the registration's
  // lock before any read of the socket is made through it).
  bool from_ring() const noexcept { return from_ring_.load(std::memory_order_acquire); }
  void set_from_ring(bool on) noexcept { from_ring_.store(on, std::memory_order_release); }

 private:
  std::atomic<snapshot> state_[2] = {1, 1};
  std::atomic<bool> from_ring_{false};
};

// What an operation needs of a registration; copied into each awaiter.
// The table outlives every task of its runtime, and the readiness lives in
// the table, so both pointers stay valid while a task uses them.
struct fd_registration {
  fd_registry* table = nullptr;  // null: not registered
  std::uint64_t key = 0;         // (slot index + 1) << 32 | generation
  fd_readiness* readiness = nullptr;
  int fd = -1;
};

enum class fd_arm_result {
  waiting,  // the waker is left: the driver wakes it
  ready,    // the direction's bit is set: try the call instead of waiting
  gone,     // deregistered, or the table closed
};

}  // namespace lanes::detail
